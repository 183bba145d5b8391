// A `chatskin start` killed outright (SIGKILL: no shutdown step runs) the moment its API has
// answered writes 2xx: after a restart on the same database, every answered write is there. The
// service answers a write only after the COMMIT that holds it (group commit), so the kill cannot
// take back anything a client was told was done.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_HEADERS, runCli, startHost, tempWorkspace } from './cli-process.ts';
import type { RunningHost } from './cli-process.ts';

const FIXTURE = `
accounts:
  - login: alice
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true, values: { bubble.width: 420 } }
    skins:
      - { slug: neon, name: Neon, template: bubbles, availability: purchase, values: { bubble.background-color: "#ff00ff" } }
viewers:
  - { twitch_user_id: "1001", twitch_username: viewer_one }
  - { twitch_user_id: "1002", twitch_username: viewer_two }
`;

describe('chatskin start killed with SIGKILL right after answering writes', () => {
  const { dir, config } = tempWorkspace();
  let host: RunningHost | undefined;
  afterAll(async () => { if (host?.child.exitCode === null) await host.stop('SIGKILL'); });

  it('keeps every write it answered 2xx: template, skin, grant and revoke are there after a restart', async () => {
    const fixture = join(dir, 'fixture.yaml');
    writeFileSync(fixture, FIXTURE);
    const seeded = await runCli(['seed', fixture, '--config', config]);
    expect(seeded.code, seeded.stderr).toBe(0);
    const neon = (JSON.parse(seeded.stdout) as { accounts: Record<string, { skins: Record<string, number> }> }).accounts.alice!.skins.neon!;
    const created = await runCli(['keys', 'create', 'alice', '--config', config]);
    expect(created.code, created.stderr).toBe(0);
    const headers = { ...CLIENT_HEADERS, authorization: `Bearer ${created.stdout.trimEnd().split('\n').at(-1)!}`, 'content-type': 'application/json' };
    const call = (running: RunningHost, method: string, path: string, body?: unknown) =>
      fetch(`${running.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });

    host = await startHost(config, { cwd: dir });
    const killed = host;
    // An API grant to revoke in the writes below (a purchase would not be revocable).
    expect((await call(killed, 'POST', '/viewers/unlock-skin', { twitch_username: 'viewer_one', skin_id: neon })).status).toBe(201);
    // Sent together, so they share group commits; the kill goes out as soon as the last answer has
    // arrived, before anything else can happen in the host.
    const answers = await Promise.all([
      call(killed, 'PUT', '/template', { scope: 'independent', values: { 'bubble.width': 321 } }),
      call(killed, 'PUT', `/skins/${neon}`, { values: { 'bubble.background-color': '#00ff00' } }),
      call(killed, 'POST', '/viewers/unlock-skin', { twitch_username: 'viewer_two', skin_id: neon }),
      call(killed, 'DELETE', '/viewers/unlock-skin', { twitch_username: 'viewer_one', skin_id: neon }),
    ]);
    const exited = killed.stop('SIGKILL');
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 201, 200]);
    expect(await exited).toBeNull();

    host = await startHost(config, { cwd: dir });
    const read = async (path: string) => {
      const answer = await call(host!, 'GET', path);
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { data: unknown }).data;
    };
    expect(((await read('/template')) as { settings_values: Record<string, unknown> }).settings_values['bubble.width']).toBe(321);
    const skins = (await read('/skins')) as Array<{ id: number; settings_values: Record<string, unknown> }>;
    expect(skins.find((skin) => skin.id === neon)?.settings_values['bubble.background-color']).toBe('#00ff00');
    expect(await read('/viewers/viewer_two/skins')).toEqual([{ id: neon, name: 'Neon', slug: 'neon' }]);
    expect(await read('/viewers/viewer_one/skins')).toEqual([]);
  });
});
