// Every endpoint's success path and the refusals the service decides, over a real socket.
import { describe, expect, it } from 'vitest';
import { apiTestServerForEachTest, errorFields } from './api-test-server.ts';

const TEMPLATE_VIEW_FIELDS = [
  'overridden_keys', 'override_values', 'preset_id', 'preset_name', 'settings_values', 'source_values',
  'sync_source_preset_id', 'template_id', 'template_name', 'template_slug',
];
const SKIN_FIELDS = ['availability', 'description', 'id', 'is_active', 'name', 'settings_values', 'slug'];

// Each test starts from the seeded fixture, so the order of tests does not matter.
const server = apiTestServerForEachTest();
const alice = () => server.ids.accounts.alice!;

describe('GET /healthz', () => {
  it('answers 200 {status:"ok"} with no key and no User-Agent rule', async () => {
    const response = await fetch(`${server.origin}/healthz`, { headers: { 'User-Agent': 'curl/8.0' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /template', () => {
  it('reads the default overlay when preset_id is omitted', async () => {
    const answer = await server.call('/template');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(answer.body)).toEqual(['data']);
    const data = answer.body.data;
    expect(Object.keys(data).sort()).toEqual(TEMPLATE_VIEW_FIELDS);
    expect(data).toMatchObject({
      template_slug: 'bubbles', template_name: 'Bubbles', preset_id: alice().overlays.Main, preset_name: 'Main',
      sync_source_preset_id: null, override_values: {}, overridden_keys: [],
    });
    expect(typeof data.template_id).toBe('number');
    expect(data.settings_values['bubble.width']).toBe(420);
    expect(data.source_values).toEqual(data.settings_values);
  });

  it('reads a synced overlay with its source and overrides', async () => {
    const answer = await server.call(`/template?preset_id=${alice().overlays.Second}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      preset_id: alice().overlays.Second, preset_name: 'Second', sync_source_preset_id: alice().overlays.Main,
      override_values: { 'avatar.size': 80 }, overridden_keys: ['avatar.size'],
    });
    expect(answer.body.data.settings_values['avatar.size']).toBe(80);
    expect(answer.body.data.source_values['bubble.width']).toBe(420);
  });

  it.each(['0', '-1', 'abc', '1.5', '', '1e3', '99999999999999999999'])('refuses preset_id=%j with 422 on errors.preset_id', async (raw) => {
    const answer = await server.call(`/template?preset_id=${encodeURIComponent(raw)}`);
    expect(answer.status).toBe(422);
    expect(typeof answer.body.message).toBe('string');
    expect(errorFields(answer)).toEqual(['preset_id']);
  });

  it('refuses a repeated preset_id with 422', async () => {
    const answer = await server.call('/template?preset_id=1&preset_id=2');
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['preset_id']);
  });

  it('answers 404 {message} for an overlay that does not exist', async () => {
    const answer = await server.call('/template?preset_id=999999');
    expect(answer.status).toBe(404);
    expect(Object.keys(answer.body)).toEqual(['message']);
  });
});

describe('PUT /template', () => {
  it('merges values into an independent overlay and answers {message, data}', async () => {
    const answer = await server.call('/template', {
      method: 'PUT',
      json: { scope: 'independent', values: { 'bubble.gap': 12, 'bubble.background-color': '#ABC' } },
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['data', 'message']);
    expect(typeof answer.body.message).toBe('string');
    expect(Object.keys(answer.body.data).sort()).toEqual(['override_values', 'preset_id', 'scope', 'settings_values', 'source_values']);
    expect(answer.body.data).toMatchObject({ scope: 'independent', preset_id: alice().overlays.Main });
    expect(answer.body.data.settings_values).toMatchObject({
      'bubble.gap': 12, 'bubble.background-color': '#aabbcc', 'bubble.width': 420,
    });
    const read = await server.call('/template');
    expect(read.body.data.settings_values['bubble.gap']).toBe(12);
  });

  // Partial updates merge into the scope: simultaneous writes of different keys all land.
  it('keeps every key of simultaneous partial updates (no write is lost)', async () => {
    const keys = ['bubble.gap', 'bubble.padding', 'avatar.size', 'avatar.padding', 'message.font-size', 'username.font-size', 'bubble.border-width', 'chat.padding'];
    const answers = await Promise.all(keys.map((key, i) =>
      server.call('/template', { method: 'PUT', json: { scope: 'independent', values: { [key]: 70 + i } } })));
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    const read = await server.call('/template');
    expect(keys.map((key) => read.body.data.settings_values[key])).toEqual(keys.map((_key, i) => 70 + i));
    expect(read.body.data.settings_values['bubble.width']).toBe(420);
  });

  it('writes overrides of a synced overlay with scope override', async () => {
    const second = alice().overlays.Second!;
    const answer = await server.call('/template', {
      method: 'PUT', json: { scope: 'override', preset_id: second, values: { 'bubble.gap': 3 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.override_values).toEqual({ 'avatar.size': 80, 'bubble.gap': 3 });
    const main = await server.call('/template');
    expect(main.body.data.settings_values['bubble.gap']).toBe(10);
  });

  it('an override wins over the sync source for the same key; null gives the key back to the source', async () => {
    const second = alice().overlays.Second!;
    // The sync source (Main) has bubble.width 420.
    const written = await server.call('/template', {
      method: 'PUT', json: { scope: 'override', preset_id: second, values: { 'bubble.width': 300 } },
    });
    expect(written.status).toBe(200);
    expect(written.body.data.settings_values['bubble.width']).toBe(300);
    expect(written.body.data.source_values['bubble.width']).toBe(420);
    const read = await server.call(`/template?preset_id=${second}`);
    expect(read.body.data.settings_values['bubble.width']).toBe(300);
    expect(read.body.data.source_values['bubble.width']).toBe(420);
    expect([...read.body.data.overridden_keys].sort()).toEqual(['avatar.size', 'bubble.width']);

    const reset = await server.call('/template', {
      method: 'PUT', json: { scope: 'override', preset_id: second, values: { 'bubble.width': null } },
    });
    expect(reset.body.data.settings_values['bubble.width']).toBe(420);
    expect(reset.body.data.override_values).toEqual({ 'avatar.size': 80 });
  });

  it('writes the sync source with scope source', async () => {
    const answer = await server.call('/template', {
      method: 'PUT', json: { scope: 'source', preset_id: alice().overlays.Second, values: { 'bubble.width': 480 } },
    });
    expect(answer.status).toBe(200);
    const main = await server.call('/template');
    expect(main.body.data.settings_values['bubble.width']).toBe(480);
  });

  it('takes preset_id from the query when the body has none', async () => {
    const answer = await server.call(`/template?preset_id=${alice().overlays.Second}`, {
      method: 'PUT', json: { scope: 'override', values: { 'bubble.gap': 7 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.preset_id).toBe(alice().overlays.Second);
  });

  it('takes preset_id from the query when the body\'s is null (null counts as left out)', async () => {
    const answer = await server.call(`/template?preset_id=${alice().overlays.Second}`, {
      method: 'PUT', json: { scope: 'override', preset_id: null, values: { 'bubble.gap': 9 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.preset_id).toBe(alice().overlays.Second);
    expect((await server.call(`/template?preset_id=${alice().overlays.Second}`)).body.data.override_values['bubble.gap']).toBe(9);
  });

  it('refuses a scope that does not fit the overlay with 422 on errors.scope', async () => {
    const before = server.dump();
    const answer = await server.call('/template', { method: 'PUT', json: { scope: 'override', values: { 'bubble.gap': 3 } } });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['scope']);
    expect(server.dump()).toEqual(before);
  });

  it('refuses a missing values field with 422 on errors.values', async () => {
    const answer = await server.call('/template', { method: 'PUT', json: { scope: 'independent' } });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['values']);
    expect(answer.body.message).toMatch(/values/);
  });

  it('refuses invalid setting values with errors keyed values.<key> and the "(and N more errors)" message', async () => {
    const before = server.dump();
    const answer = await server.call('/template', {
      method: 'PUT', json: { scope: 'independent', values: { 'bubble.width': 10001, 'bubble.nope': 1, 'bubble.gap': '5' } },
    });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['values.bubble.gap', 'values.bubble.nope', 'values.bubble.width']);
    expect(answer.body.message).toMatch(/\(and 2 more errors\)$/);
    expect(server.dump()).toEqual(before);
  });

  it('answers 404 for an overlay that does not exist', async () => {
    const answer = await server.call('/template', { method: 'PUT', json: { scope: 'independent', preset_id: 999999, values: { 'bubble.gap': 1 } } });
    expect(answer.status).toBe(404);
    expect(Object.keys(answer.body)).toEqual(['message']);
  });

  // A body preset_id that is not a positive integer is an invalid field (422, as in the query),
  // never "Overlay not found.": only a well-formed id naming no overlay of the caller's is a 404.
  it.each([0, -3, 1.5, '1', 1e20, true])('refuses body preset_id %j with 422 on errors.preset_id, changing nothing', async (presetId) => {
    const before = server.dump();
    const answer = await server.call('/template', {
      method: 'PUT', json: { scope: 'independent', preset_id: presetId, values: { 'bubble.gap': 1 } },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body).sort()).toEqual(['errors', 'message']);
    expect(answer.body.errors).toEqual({ preset_id: ['The preset_id field must be a positive integer.'] });
    expect(answer.body.message).toBe('The preset_id field must be a positive integer.');
    expect(server.dump()).toEqual(before);
  });

  it('refuses a body preset_id of 0 even when the query names an overlay (the body wins)', async () => {
    const before = server.dump();
    const answer = await server.call(`/template?preset_id=${alice().overlays.Main}`, {
      method: 'PUT', json: { scope: 'independent', preset_id: 0, values: { 'bubble.gap': 1 } },
    });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['preset_id']);
    expect(server.dump()).toEqual(before);
  });

  it('refuses an empty values object as missing (422 on errors.values), nothing stored changes', async () => {
    const before = server.dump();
    const answer = await server.call('/template', { method: 'PUT', json: { scope: 'independent', values: {} } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ message: 'The values field is required.', errors: { values: ['The values field is required.'] } });
    expect(server.dump()).toEqual(before);
  });
});

describe('GET /skins', () => {
  it("lists the caller's own skins of the default overlay's template", async () => {
    const answer = await server.call('/skins');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['data']);
    const slugs = answer.body.data.map((s: { slug: string }) => s.slug);
    expect(slugs).toContain('neon');
    expect(slugs).not.toContain('tape');
    expect(slugs).not.toContain('bobskin');
    expect(slugs).not.toContain('classic');
    const neon = answer.body.data.find((s: { slug: string }) => s.slug === 'neon');
    expect(Object.keys(neon).sort()).toEqual(SKIN_FIELDS);
    expect(neon).toMatchObject({ name: 'Neon', description: 'Bright', availability: 'purchase', is_active: true });
    expect(neon.settings_values['bubble.background-color']).toBe('#ff00ff');
  });

  it("filters by the template of preset_id's overlay", async () => {
    const answer = await server.call(`/skins?preset_id=${alice().overlays.Ticker}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((s: { slug: string }) => s.slug)).toEqual(['tape']);
  });

  it('refuses a bad preset_id with 422 and an unknown one with 404', async () => {
    expect((await server.call('/skins?preset_id=x')).status).toBe(422);
    expect((await server.call('/skins?preset_id=999999')).status).toBe(404);
  });
});

describe('PUT /skins/{skin_id}', () => {
  it('merges values into an own skin and answers {message, data:{id, name, settings_values}}', async () => {
    const neon = alice().skins.neon!;
    const answer = await server.call(`/skins/${neon}`, { method: 'PUT', json: { values: { 'bubble.border-width': 3 } } });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['data', 'message']);
    expect(Object.keys(answer.body.data).sort()).toEqual(['id', 'name', 'settings_values']);
    expect(answer.body.data).toMatchObject({ id: neon, name: 'Neon' });
    expect(answer.body.data.settings_values).toMatchObject({ 'bubble.border-width': 3, 'bubble.background-color': '#ff00ff' });
  });

  it('keeps every key of simultaneous partial updates of one skin (no write is lost)', async () => {
    const neon = alice().skins.neon!;
    const keys = ['bubble.gap', 'bubble.padding', 'avatar.size', 'avatar.padding', 'message.font-size', 'username.font-size'];
    const answers = await Promise.all(keys.map((key, i) =>
      server.call(`/skins/${neon}`, { method: 'PUT', json: { values: { [key]: 70 + i } } })));
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    const listed = (await server.call('/skins')).body.data.find((s: { id: number }) => s.id === neon);
    expect(keys.map((key) => listed.settings_values[key])).toEqual(keys.map((_key, i) => 70 + i));
    expect(listed.settings_values['bubble.background-color']).toBe('#ff00ff');
  });

  it('refuses a global platform skin with 403 and changes nothing', async () => {
    const before = server.dump();
    const answer = await server.call(`/skins/${server.ids.global_skins.classic}`, { method: 'PUT', json: { values: { 'bubble.gap': 2 } } });
    expect(answer.status).toBe(403);
    expect(Object.keys(answer.body)).toEqual(['message']);
    expect(server.dump()).toEqual(before);
  });

  it('answers 404 for a skin that does not exist', async () => {
    const answer = await server.call('/skins/999999', { method: 'PUT', json: { values: { 'bubble.gap': 2 } } });
    expect(answer.status).toBe(404);
  });

  it.each(['0', '-3', 'abc', '1.0', '007'])('refuses skin_id %j with 422 on errors.skin_id', async (raw) => {
    const answer = await server.call(`/skins/${raw}`, { method: 'PUT', json: { values: { 'bubble.gap': 2 } } });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['skin_id']);
  });

  it('refuses a missing values field with 422', async () => {
    const answer = await server.call(`/skins/${alice().skins.neon}`, { method: 'PUT', json: {} });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['values']);
  });

  it('refuses an empty values object as missing (422 on errors.values), nothing stored changes', async () => {
    const before = server.dump();
    const answer = await server.call(`/skins/${alice().skins.neon}`, { method: 'PUT', json: { values: {} } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ message: 'The values field is required.', errors: { values: ['The values field is required.'] } });
    expect(server.dump()).toEqual(before);
  });
});

describe('POST /viewers/unlock-skin', () => {
  it('answers 201 for a new grant, then 200 for the same grant, creating one entitlement', async () => {
    const body = { twitch_username: 'viewer_two', skin_id: alice().skins.vault };
    const first = await server.call('/viewers/unlock-skin', { method: 'POST', json: body });
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'message']);
    expect(first.body.data).toEqual({ twitch_username: 'viewer_two', skin: { id: alice().skins.vault, name: 'Vault' } });
    const after = server.dump();
    const second = await server.call('/viewers/unlock-skin', { method: 'POST', json: body });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(server.dump()).toEqual(after);
  });

  // Spec, unlock rule 3 (idempotent), also when the repeats arrive together.
  it('answers 12 simultaneous unlocks of one pair with one 201 and 200s, creating one entitlement', async () => {
    const body = { twitch_user_id: '1002', skin_id: alice().skins.vault };
    const answers = await Promise.all(Array.from({ length: 12 }, () => server.call('/viewers/unlock-skin', { method: 'POST', json: body })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const grants = server.dump().entitlements!.filter((e) => (e as { skin_id: number }).skin_id === alice().skins.vault);
    expect(grants).toHaveLength(1);
  });

  it('grants a global skin by twitch_user_id, answering with the viewer\'s login', async () => {
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_user_id: '1002', skin_id: server.ids.global_skins.classic },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toEqual({ twitch_username: 'viewer_two', skin: { id: server.ids.global_skins.classic, name: 'Classic' } });
  });

  it('answers with the stored login, not the spelling sent', async () => {
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'VIEWER_TWO', skin_id: alice().skins.vault },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data.twitch_username).toBe('viewer_two');
  });

  // Spec, unlock rule 4: the grant does not select the skin; the viewer still chooses it.
  it('does not select the skin for the viewer: no pick is made, and an existing pick stays', async () => {
    const viewerTwo = server.ids.viewers.viewer_two!;
    const unpicked = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_two', skin_id: alice().skins.vault },
    });
    expect(unpicked.status).toBe(201);
    expect(server.dump().viewer_skin_picks).toEqual([]);

    await server.harness.service.pickSkin(alice().id, viewerTwo, server.ids.global_skins.classic!);
    const picks = server.dump().viewer_skin_picks;
    expect(picks).toHaveLength(1);
    const picked = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_user_id: '1002', skin_id: server.ids.global_skins.classic },
    });
    expect(picked.status).toBe(201);
    const another = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_two', skin_id: alice().skins.neon },
    });
    expect(another.status).toBe(201);
    expect(server.dump().viewer_skin_picks).toEqual(picks);
  });

  it('answers 200 when the viewer bought the skin already', async () => {
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_one', skin_id: alice().skins.neon },
    });
    expect(answer.status).toBe(200);
  });

  it('answers 404 for a viewer without an account', async () => {
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'nobody_here', skin_id: alice().skins.neon },
    });
    expect(answer.status).toBe(404);
    expect(Object.keys(answer.body)).toEqual(['message']);
  });

  it('answers 404 for a skin that does not exist', async () => {
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_two', skin_id: 999999 },
    });
    expect(answer.status).toBe(404);
    expect(Object.keys(answer.body)).toEqual(['message']);
  });

  // A skin_id that is not a positive integer is an invalid field (422, as in the PUT /skins path),
  // never "Skin not found.", and grants nothing.
  it.each([0, -1, 1.5, '2', 1e20, true])('refuses skin_id %j with 422 on errors.skin_id, granting nothing', async (skinId) => {
    const before = server.dump();
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_two', skin_id: skinId },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body).sort()).toEqual(['errors', 'message']);
    expect(answer.body.errors).toEqual({ skin_id: ['The skin_id field must be a positive integer.'] });
    expect(answer.body.message).toBe('The skin_id field must be a positive integer.');
    expect(server.dump()).toEqual(before);
  });

  it('answers 422 for an inactive skin and for a body without an identifier', async () => {
    const inactive = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_two', skin_id: alice().skins.retired },
    });
    expect(inactive.status).toBe(422);
    const noViewer = await server.call('/viewers/unlock-skin', { method: 'POST', json: { skin_id: alice().skins.neon } });
    expect(noViewer.status).toBe(422);
    expect(noViewer.body.errors).toBeTypeOf('object');
  });
});

describe('DELETE /viewers/unlock-skin', () => {
  it('withdraws an API grant with {message}, then answers 404', async () => {
    const body = { twitch_username: 'viewer_two', skin_id: alice().skins.vault };
    expect((await server.call('/viewers/unlock-skin', { method: 'POST', json: body })).status).toBe(201);
    const revoked = await server.call('/viewers/unlock-skin', { method: 'DELETE', json: body });
    expect(revoked.status).toBe(200);
    expect(Object.keys(revoked.body)).toEqual(['message']);
    expect(typeof revoked.body.message).toBe('string');
    const again = await server.call('/viewers/unlock-skin', { method: 'DELETE', json: body });
    expect(again.status).toBe(404);
  });

  it.each([0, -1])('refuses skin_id %j with 422 on errors.skin_id, withdrawing nothing', async (skinId) => {
    const before = server.dump();
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'DELETE', json: { twitch_username: 'viewer_one', skin_id: skinId },
    });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['skin_id']);
    expect(server.dump()).toEqual(before);
  });

  it('never touches a purchase: 404 and the entitlement stays', async () => {
    const before = server.dump();
    const answer = await server.call('/viewers/unlock-skin', {
      method: 'DELETE', json: { twitch_user_id: '1001', skin_id: alice().skins.neon },
    });
    expect(answer.status).toBe(404);
    expect(server.dump()).toEqual(before);
  });
});

describe('GET /viewers/{identifier}/skins', () => {
  it('lists API grants of the channel by login, by user id and regardless of case', async () => {
    const unlock = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_two', skin_id: alice().skins.vault },
    });
    expect(unlock.status).toBe(201);
    const expected = [{ id: alice().skins.vault, name: 'Vault', slug: 'vault' }];
    for (const identifier of ['viewer_two', '1002', 'VIEWER_TWO']) {
      const answer = await server.call(`/viewers/${identifier}/skins`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: expected });
    }
  });

  it('does not list purchases', async () => {
    const answer = await server.call('/viewers/viewer_one/skins');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: [] });
  });

  it('answers 404 for an unknown viewer and for a malformed %-escape', async () => {
    expect((await server.call('/viewers/nobody_here/skins')).status).toBe(404);
    const malformed = await server.call('/viewers/%E0%A4%A/skins');
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({ message: 'Not Found.' });
  });

  it('redirects a browser\'s malformed %-escape under the API only: elsewhere on the server it is a plain 404', async () => {
    const asBrowser = { headers: { Accept: 'text/html' } };
    expect((await server.call('/viewers/%E0%A4%A/skins', asBrowser)).status).toBe(302);
    for (const path of ['/overlay/%E0%A4%A', '/local/chat/%E0%A4%A']) {
      const answer = await fetch(server.origin + path, { headers: { Accept: 'text/html', 'User-Agent': 'chatskin-tests/1' }, redirect: 'manual' });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(await answer.json()).toEqual({ message: 'Not Found.' });
    }
  });
});
