// The grants plugin in the real host over a memory chat, with the in-process client over the real
// service on a temp SQLite database seeded with a fixture; and once with the HTTP client of a
// remote service (the real bundled API server on a real socket, with a real key).
import { describe, expect, it } from 'vitest';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import type { ChatTags } from '../../src/host/chat-transport.ts';
import type { SeedResult } from '../../src/service/seed.ts';
import { remoteChatAnswers, startRemotePluginWorld } from '../../test/client/remote-plugin-world.ts';
import { chatAnswers } from '../../test/host/host-fixture.ts';
import type { TestHost } from '../../test/host/host-fixture.ts';
import { startPluginWorld } from '../../test/host/plugin-world.ts';
import { broadcasterTags, moderatorTags, viewerTags, vipTags } from '../../test/host/irc-tags.ts';
import { LEVEL } from '../../test/host/log-capture.ts';
import type { Harness } from '../../test/service/core/service-harness.ts';

const FIXTURE = {
  accounts: [
    {
      login: 'streamer',
      premium: true,
      overlays: [{ name: 'Main', template: 'bubbles', default: true, values: {} }],
      skins: [
        { slug: 'neon', name: 'Neon', template: 'bubbles', availability: 'purchase', values: {} },
        { slug: 'vault', name: 'Vault', template: 'bubbles', availability: 'exclusive', values: {} },
        { slug: 'retired', name: 'Retired', template: 'bubbles', availability: 'purchase', active: false, values: {} },
        { slug: 'tape', name: 'Tape', template: 'ticker', availability: 'purchase', values: {} },
        { slug: 'owl', name: 'Night Owl', template: 'bubbles', availability: 'purchase', values: {} },
      ],
    },
    { login: 'other', premium: true, skins: [{ slug: 'foreign', name: 'Foreign', template: 'bubbles', availability: 'purchase', values: {} }] },
  ],
  global_skins: [{ slug: 'classic', name: 'Classic', template: 'bubbles', availability: 'purchase', values: {} }],
  viewers: [
    { twitch_user_id: '1001', twitch_username: 'viewer_one' },
    { twitch_user_id: '1002', twitch_username: 'viewer_two' },
  ],
  purchases: [{ account: 'streamer', viewer: 'viewer_two', skin: 'neon' }],
};

interface World {
  test: TestHost;
  client: OverlayStyleClient;
  harness: Harness;
  ids: SeedResult;
  skins: Record<string, number>;
}

async function world(settings: (ids: SeedResult) => Record<string, unknown> = () => ({})): Promise<World> {
  const { test, client, harness, ids } = await startPluginWorld({ fixture: FIXTURE, plugin: 'grants', settings });
  const skins = { ...ids.accounts.streamer!.skins, classic: ids.global_skins.classic!, foreign: ids.accounts.other!.skins.foreign! };
  return { test, client, harness, ids, skins };
}

const chat = (test: TestHost, text: string, tags: ChatTags = moderatorTags()): Promise<string[]> => chatAnswers(test, text, tags);

async function granted(client: OverlayStyleClient, viewer: string): Promise<string[]> {
  return (await client.listViewerSkins(viewer)).map((skin) => skin.slug);
}

describe('grants plugin: !grant', () => {
  it('loads with its two commands', async () => {
    const { test } = await world();
    expect(test.host.plugins).toEqual([{ name: 'grants', state: 'running', commands: ['grant', 'revoke'], rewards: [] }]);
  });

  it('grants a skin by slug (201), then says the viewer already has it (200)', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!grant @viewer_one neon')).toEqual(['@Mod_mia granted Neon to viewer_one.']);
    expect(await granted(client, 'viewer_one')).toEqual(['neon']);
    expect(await chat(test, '!grantskin Viewer_One NEON')).toEqual(['@Mod_mia viewer_one already has Neon.']);
    expect(await granted(client, 'viewer_one')).toEqual(['neon']);
  });

  it('a viewer who bought the skin already has it; no grant is made', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!grant viewer_two neon')).toEqual(['@Mod_mia viewer_two already has Neon.']);
    expect(await granted(client, 'viewer_two')).toEqual([]);
  });

  it('takes a skin name, a numeric id (a global skin), or a name from the config\'s skinIds', async () => {
    const { test, client, skins } = await world((ids) => ({ skinIds: { classic: ids.global_skins.classic! } }));
    expect(await chat(test, '!grant viewer_one Vault')).toEqual(['@Mod_mia granted Vault to viewer_one.']);
    expect(await chat(test, `!grant viewer_one ${skins.tape!}`)).toEqual(['@Mod_mia granted Tape to viewer_one.']);
    expect(await chat(test, '!grant viewer_one classic')).toEqual(['@Mod_mia granted Classic to viewer_one.']);
    expect((await granted(client, 'viewer_one')).sort()).toEqual(['classic', 'tape', 'vault']);
  });

  it('a viewer unknown to the service, and a skin that is not the channel\'s, are one short line each', async () => {
    const { test, client, skins } = await world();
    expect(await chat(test, '!grant @nobody_here neon')).toEqual(['@Mod_mia nobody_here has no account on the overlay service yet.']);
    // An all-digit login nobody holds, though it is another viewer's user id: still the viewer that is missing.
    expect(await chat(test, '!grant @1002 neon')).toEqual(['@Mod_mia 1002 has no account on the overlay service yet.']);
    expect(await chat(test, '!grant viewer_one sparkles')).toEqual(['@Mod_mia there is no skin "sparkles" on this channel.']);
    // Skins of another template are not in GET /skins of the default overlay: by id, or skinIds.
    expect(await chat(test, '!grant viewer_one tape')).toEqual(['@Mod_mia there is no skin "tape" on this channel.']);
    expect(await chat(test, `!grant viewer_one ${skins.foreign!}`)).toEqual([`@Mod_mia there is no skin "${skins.foreign!}" on this channel.`]);
    expect(await chat(test, '!grant viewer_one 999999')).toEqual(['@Mod_mia there is no skin "999999" on this channel.']);
    // 0 is no id at all (not "an inactive skin"); a direction override is not said back.
    expect(await chat(test, '!grant viewer_one 0')).toEqual(['@Mod_mia there is no skin "0" on this channel.']);
    expect(await chat(test, '!grant viewer_one \u202Esparkles')).toEqual(['@Mod_mia there is no skin "sparkles" on this channel.']);
    expect(await granted(client, 'viewer_one')).toEqual([]);
  });

  it('an inactive skin cannot be granted', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!grant viewer_one retired')).toEqual(['@Mod_mia Retired is not active, so it cannot be granted.']);
    expect(await granted(client, 'viewer_one')).toEqual([]);
  });

  it('viewers and VIPs are ignored; the broadcaster may grant', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!grant viewer_one neon', viewerTags('viewer_one'))).toEqual([]);
    expect(await chat(test, '!grant viewer_one neon', vipTags())).toEqual([]);
    expect(await granted(client, 'viewer_one')).toEqual([]);
    expect(await chat(test, '!grant viewer_one neon', broadcasterTags())).toEqual(['@Streamer granted Neon to viewer_one.']);
  });

  it('a missing argument gets the usage line', async () => {
    const { test } = await world();
    expect(await chat(test, '!grant neon')).toEqual(['@Mod_mia skin is missing. Usage: !grant <viewer> <skin...>']);
  });

  it('takes a skin name with spaces (the rest of the line), and revokes it by that name', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!grant @viewer_one Night Owl')).toEqual(['@Mod_mia granted Night Owl to viewer_one.']);
    expect(await granted(client, 'viewer_one')).toEqual(['owl']);
    expect(await chat(test, '!grant viewer_one night owl  ')).toEqual(['@Mod_mia viewer_one already has Night Owl.']);
    expect(await chat(test, '!grant viewer_one Night Hawk')).toEqual(['@Mod_mia there is no skin "Night Hawk" on this channel.']);
    expect(await chat(test, '!revoke viewer_one NIGHT OWL')).toEqual(['@Mod_mia revoked Night Owl from viewer_one.']);
    expect(await granted(client, 'viewer_one')).toEqual([]);
  });
});

describe('grants plugin: !revoke', () => {
  it('revokes a grant, then says there is none', async () => {
    const { test, client } = await world();
    await chat(test, '!grant viewer_one neon');
    expect(await chat(test, '!revoke @viewer_one neon')).toEqual(['@Mod_mia revoked Neon from viewer_one.']);
    expect(await granted(client, 'viewer_one')).toEqual([]);
    expect(await chat(test, '!revokeskin viewer_one neon')).toEqual([
      '@Mod_mia viewer_one has no grant of "neon" to revoke (a purchase is never revoked).',
    ]);
  });

  it('revokes a global skin by its slug, and by id', async () => {
    const { test, client, skins } = await world();
    // A global skin is not in GET /skins; its id grants it all the same.
    expect(await chat(test, `!grant viewer_one ${skins.classic!}`)).toEqual(['@Mod_mia granted Classic to viewer_one.']);
    expect(await chat(test, '!revoke viewer_one classic')).toEqual(['@Mod_mia revoked Classic from viewer_one.']);
    await chat(test, `!grant viewer_one ${skins.classic!}`);
    expect(await chat(test, `!revoke viewer_one ${skins.classic!}`)).toEqual(['@Mod_mia revoked Classic from viewer_one.']);
    expect(await granted(client, 'viewer_one')).toEqual([]);
  });

  it('never touches a purchase', async () => {
    const w = await world();
    expect(await chat(w.test, '!revoke viewer_two neon')).toEqual([
      '@Mod_mia viewer_two has no grant of "neon" to revoke (a purchase is never revoked).',
    ]);
    const viewer = await w.harness.service.findViewer('viewer_two');
    const pickable = await w.harness.service.listPickableSkins(w.ids.accounts.streamer!.id, viewer!.id);
    expect(pickable.map((skin) => skin.slug)).toContain('neon');
  });

  it('an unknown viewer is one short line; a viewer cannot revoke', async () => {
    const { test, client } = await world();
    expect(await chat(test, '!revoke nobody_here neon')).toEqual(['@Mod_mia nobody_here has no account on the overlay service yet.']);
    await chat(test, '!grant viewer_one neon');
    expect(await chat(test, '!revoke viewer_one neon', viewerTags('ann'))).toEqual([]);
    expect(await granted(client, 'viewer_one')).toEqual(['neon']);
  });
});

describe('grants plugin: a login of digits only that is another viewer\'s user id', () => {
  // GET /viewers/{identifier}/skins reads `1001` as viewer_one's user id first (docs/commands.md).
  it('!grant by skin id to such a login without an account says the account is missing, not the skin', async () => {
    const { test, skins } = await world();
    expect(await chat(test, `!grant @1001 ${skins.neon!}`)).toEqual(['@Mod_mia 1001 has no account on the overlay service yet.']);
    // A skin the channel does not list may be the missing one as well: both are said.
    expect(await chat(test, `!grant @1001 ${skins.foreign!}`)).toEqual([
      `@Mod_mia 1001 has no account on the overlay service yet, or there is no skin "${skins.foreign!}" on this channel.`,
    ]);
  });

  it('!revoke to such a login without an account says the account is missing, not the grant', async () => {
    const { test, skins } = await world();
    expect(await chat(test, '!grant @viewer_one vault')).toEqual(['@Mod_mia granted Vault to viewer_one.']);
    // Held in the list read (viewer_one's), and not in it; by slug and by id alike.
    for (const typed of ['vault', 'neon', String(skins.neon!)]) {
      expect(await chat(test, `!revoke @1001 ${typed}`), typed).toEqual(['@Mod_mia 1001 has no account on the overlay service yet.']);
    }
    // A word that names no skin at all is not sent: nothing to revoke.
    expect(await chat(test, '!revoke @1001 sparkles')).toEqual(['@Mod_mia 1001 has no grant of "sparkles" to revoke (a purchase is never revoked).']);
  });

  it('!revoke by a channel skin\'s id names the skin', async () => {
    const { test, client, harness, skins } = await world();
    await harness.service.registerViewer({ twitchUserId: '4001', login: '1001' });
    expect(await chat(test, '!grant @1001 vault')).toEqual(['@Mod_mia granted Vault to 1001.']);
    expect(await chat(test, `!revoke @1001 ${skins.vault!}`)).toEqual(['@Mod_mia revoked Vault from 1001.']);
    expect(await granted(client, '4001')).toEqual([]);
  });
});

describe('grants plugin: config', () => {
  it('refuses a skinIds entry that is not a positive id, naming the path', async () => {
    const { test } = await world(() => ({ skinIds: { classic: 0 } }));
    expect(test.host.plugins[0]).toMatchObject({ state: 'failed' });
    expect(test.host.plugins[0]!.error).toContain('plugins.grants.skinIds.classic');
  });
});

describe('grants plugin: remote service (HTTP client, bundled server on a real socket)', () => {
  it('a grant whose first answer was lost on the way back (the client sent it again) is reported as held, not as held before', async () => {
    const w = await startRemotePluginWorld({ fixture: FIXTURE, plugins: { grants: {} }, maxRetries: 1, answerDroppingProxy: true });
    w.proxy!.dropNextAnswer('POST /api/v1/viewers/unlock-skin ');
    expect(await remoteChatAnswers(w.test, '!grant viewer_one vault', moderatorTags())).toEqual(['@Mod_mia viewer_one has Vault now.']);
    expect(w.proxy!.dropped).toBe(1);
    // Held before, with every answer arriving: said so.
    expect(await remoteChatAnswers(w.test, '!grant viewer_one vault', moderatorTags())).toEqual(['@Mod_mia viewer_one already has Vault.']);
  });

  it('a revoke whose answer was lost after the service did it (not sent again: DELETE): the grant is looked up, so chat hears it was revoked, not "try again"', async () => {
    const w = await startRemotePluginWorld({ fixture: FIXTURE, plugins: { grants: {} }, maxRetries: 1, answerDroppingProxy: true });
    expect(await remoteChatAnswers(w.test, '!grant viewer_one neon', moderatorTags())).toEqual(['@Mod_mia granted Neon to viewer_one.']);
    w.proxy!.dropNextAnswer('DELETE /api/v1/viewers/unlock-skin ');
    expect(await remoteChatAnswers(w.test, '!revoke viewer_one neon', moderatorTags())).toEqual(['@Mod_mia revoked Neon from viewer_one.']);
    expect(w.proxy!.dropped).toBe(1);
    expect(await w.harness.service.listViewerSkins(w.accountId, 'viewer_one')).toEqual([]);
  });

  it('grants and revokes through the API; the remote service holds the grant, purchases stay, errors are one line', async () => {
    const w = await startRemotePluginWorld({ fixture: FIXTURE, plugins: { grants: {} } });
    const ask = (text: string, tags: ChatTags = moderatorTags()) => remoteChatAnswers(w.test, text, tags);
    const grantsOnRemote = async (login: string) => (await w.harness.service.listViewerSkins(w.accountId, login)).map((skin) => skin.slug);

    expect(await ask('!grant @viewer_one neon')).toEqual(['@Mod_mia granted Neon to viewer_one.']);
    expect(await grantsOnRemote('viewer_one')).toEqual(['neon']);
    expect(await ask('!grant viewer_one Neon')).toEqual(['@Mod_mia viewer_one already has Neon.']);
    expect(await ask('!grant viewer_two neon')).toEqual(['@Mod_mia viewer_two already has Neon.']);
    expect(await ask('!grant nobody_here neon')).toEqual(['@Mod_mia nobody_here has no account on the overlay service yet.']);
    expect(await ask('!grant viewer_one retired')).toEqual(['@Mod_mia Retired is not active, so it cannot be granted.']);

    expect(await ask('!revoke @viewer_one neon')).toEqual(['@Mod_mia revoked Neon from viewer_one.']);
    expect(await grantsOnRemote('viewer_one')).toEqual([]);
    expect(await ask('!revoke viewer_two neon')).toEqual([
      '@Mod_mia viewer_two has no grant of "neon" to revoke (a purchase is never revoked).',
    ]);
    // A login of digits only, viewer_one's user id, with no account: the remote's 404 says so too.
    expect(await ask('!revoke @1001 neon')).toEqual(['@Mod_mia 1001 has no account on the overlay service yet.']);
    const viewerTwo = await w.harness.service.findViewer('viewer_two');
    expect((await w.harness.service.listPickableSkins(w.accountId, viewerTwo!.id)).map((skin) => skin.slug)).toContain('neon');

    // Every call went over the wire: the unlock, the revoke and the lookups.
    expect(w.requests).toEqual(expect.arrayContaining([
      'GET /api/v1/skins', 'POST /api/v1/viewers/unlock-skin', 'DELETE /api/v1/viewers/unlock-skin', 'GET /api/v1/viewers/viewer_one/skins',
    ]));
  });

  it('a base URL without the API prefix: the streamer is told to check the settings (in chat and the log), nobody is said to be missing', async () => {
    const w = await startRemotePluginWorld({ fixture: FIXTURE, plugins: { grants: {} }, basePath: '' });
    const check = '@Mod_mia the overlay service gave an answer the bot cannot read; the streamer should check the service settings.';
    expect(await remoteChatAnswers(w.test, '!revoke viewer_one neon', moderatorTags())).toEqual([check]);
    expect(await remoteChatAnswers(w.test, '!grant viewer_one neon', moderatorTags())).toEqual([check]);
    expect(w.requests).toContain('GET /skins');
    const warnings = w.test.logs.filter((entry) => entry.level === LEVEL.warn && entry.msg === 'overlay service call failed');
    expect(warnings).toHaveLength(2);
    expect(JSON.stringify(warnings[0])).toContain('without the spec\'s error body');
  });
});
