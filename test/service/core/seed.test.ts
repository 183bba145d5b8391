import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SeedFixtureError, parseSeedYaml, readSeedFile } from '../../../src/service/seed-fixture.ts';
import { SeedApplyError, applySeed } from '../../../src/service/seed.ts';
import type { Harness } from './service-harness.ts';
import { openHarness } from './service-harness.ts';
import { ISSUE_SEED_FIXTURE as BRIEF_FIXTURE } from '../../support/issue-seed-fixture.ts';

let h: Harness;
beforeEach(async () => { h = await openHarness(); });
afterEach(() => h.close());

async function problemsOf(fixture: unknown): Promise<string[]> {
  try {
    await applySeed(h.service, fixture);
  } catch (error) {
    if (error instanceof SeedFixtureError) return error.problems;
    throw error;
  }
  throw new Error('expected the fixture to be refused');
}

describe('applySeed', () => {
  it('returns exactly the ids JSON of the documented shape', async () => {
    const result = await applySeed(h.service, parseSeedYaml(BRIEF_FIXTURE));
    expect(JSON.stringify(result)).toBe(
      '{"accounts":{"alice":{"id":1,"overlays":{"Main":1,"Second":2},"skins":{"neon":1}}},"global_skins":{"classic":2},"viewers":{"viewer_one":1}}',
    );
  });

  it('stores what the fixture says', async () => {
    await applySeed(h.service, parseSeedYaml(BRIEF_FIXTURE));
    expect((await h.service.findAccount('alice'))?.premium).toBe(true);
    const second = await h.service.getTemplate(1, 2);
    expect(second.sync_source_preset_id).toBe(1);
    expect(second.override_values).toEqual({ 'avatar.size': 80 });
    expect(second.settings_values['bubble.width']).toBe(420);
    expect((await h.service.getTemplate(1)).preset_id).toBe(1);
    expect(await h.service.listSkinRoles(1)).toEqual({ moderator: 1 });
    expect(await h.store.findEntitlement(1, 1, 1)).toMatchObject({ source: 'purchase' });
  });

  it('is idempotent: a second run keeps every id and changes nothing', async () => {
    const first = await applySeed(h.service, parseSeedYaml(BRIEF_FIXTURE));
    const before = h.dump();
    h.events.length = 0;
    const second = await applySeed(h.service, parseSeedYaml(BRIEF_FIXTURE));
    expect(second).toEqual(first);
    expect(h.dump()).toEqual(before);
    expect(h.events).toEqual([]);
  });

  it('brings existing rows in line when the fixture changed, keeping their ids', async () => {
    await applySeed(h.service, parseSeedYaml(BRIEF_FIXTURE));
    const changed = parseSeedYaml(BRIEF_FIXTURE.replace('bubble.width: 420', 'bubble.width: 300').replace('premium: true', 'premium: false')) as never;
    const result = await applySeed(h.service, changed);
    expect(result.accounts.alice?.overlays).toEqual({ Main: 1, Second: 2 });
    expect((await h.service.getTemplate(1)).settings_values['bubble.width']).toBe(300);
    expect((await h.service.findAccount('alice'))?.premium).toBe(false);
    expect(h.events).toContainEqual({ type: 'overlay-changed', overlayIds: [1, 2] });
  });

  it('gives an account without overlays a default overlay on the bubbles template', async () => {
    const result = await applySeed(h.service, { accounts: [{ login: 'Bob' }] });
    expect(result.accounts).toEqual({ bob: { id: 1, overlays: { Main: 1 }, skins: {} } });
    const [main] = await h.service.listOverlays(1);
    expect(main).toMatchObject({ isDefault: true, template: { slug: 'bubbles' } });
  });

  it('names the fixture path of every problem, and writes nothing', async () => {
    const before = h.dump();
    const problems = await problemsOf({
      accounts: [{
        login: 'alice',
        colour: 'red',
        overlays: [
          { name: 'Main', template: 'bubbles', values: { 'bubble.width': 'wide' } },
          { name: 'Second', template: 'bubbles', sync_source: 'Nope' },
          { name: 'Third', template: 'nope' },
        ],
      }],
      viewers: [{ twitch_user_id: 1001, twitch_username: 'viewer_one' }],
    });
    expect(problems).toEqual(expect.arrayContaining([
      'accounts[0]: unknown field colour',
      'viewers[0].twitch_user_id must be a string of digits (quote it in YAML: "1001")',
    ]));
    const second = await problemsOf({
      accounts: [{
        login: 'alice',
        overlays: [
          { name: 'Main', template: 'bubbles', values: { 'bubble.width': 'wide' } },
          { name: 'Second', template: 'bubbles', sync_source: 'Nope' },
          { name: 'Third', template: 'nope' },
        ],
      }],
      purchases: [{ account: 'alice', viewer: 'ghost', skin: 'neon' }],
    });
    expect(second).toEqual([
      'accounts[0].overlays[0].values["bubble.width"] The bubble.width must be an integer between 0 and 10000.',
      'accounts[0].overlays[2].template is "nope", which is not a template; known: bubbles, ticker',
      'accounts[0].overlays[1].sync_source names "Nope", which is not an overlay of alice in this fixture',
      'purchases[0].viewer names "ghost", which is not a viewer in this fixture',
      'purchases[0].skin names "neon", which is neither a skin of alice nor a global skin in this fixture',
    ]);
    expect(h.dump()).toEqual(before);
  });

  it('applies all or nothing: a step the store refuses rolls the whole fixture back', async () => {
    const before = h.dump();
    const fixture = parseSeedYaml(`${BRIEF_FIXTURE.replace('active: true', 'active: false')}`);
    await expect(applySeed(h.service, fixture)).rejects.toThrow(SeedApplyError);
    await expect(applySeed(h.service, fixture)).rejects.toThrow(/Seed failed at purchases\[0\]: skin_id: The selected skin is not active\./);
    expect(h.dump()).toEqual(before);
    expect(h.events).toEqual([]);
  });

  it('reads YAML files with clear errors', () => {
    const file = path.join(h.dir, 'bad.yaml');
    writeFileSync(file, 'accounts: [\n');
    expect(() => readSeedFile(file)).toThrow(new RegExp(`Invalid seed fixture ${file}:\\n  not valid YAML`));
    expect(() => readSeedFile(path.join(h.dir, 'missing.yaml'))).toThrow(/does not exist \(no file at /);
    // A wrong path is refused before anything is read: a device, a folder, a huge (sparse) file.
    expect(() => readSeedFile('/dev/zero')).toThrow(/is not a regular file/);
    expect(() => readSeedFile(h.dir)).toThrow(/is not a regular file/);
    const huge = path.join(h.dir, 'huge.yaml');
    writeFileSync(huge, '');
    truncateSync(huge, 600 * 1024 * 1024);
    expect(() => readSeedFile(huge)).toThrow(/is larger than 16 MiB/);
  });
});
