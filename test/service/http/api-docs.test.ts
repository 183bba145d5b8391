// The answers docs/api.md quotes are the ones the API sends: each request below gets its real
// answer, and the doc must quote that answer as it is (so a changed message, or a doc that
// drifted from it, fails here).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiTestServerForEachTest } from './api-test-server.ts';

const DOCS = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');

/** The JSON bodies of the doc's ```json blocks, parsed. */
const JSON_BLOCKS = [...DOCS.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as unknown);

const server = apiTestServerForEachTest();
const alice = () => server.ids.accounts.alice!;

/** The doc quotes `{"message":"..."}` with the answer's own message, as one piece of text. */
function expectQuotedMessage(body: { message: string }): void {
  expect(DOCS).toContain(JSON.stringify({ message: body.message }));
}

describe('docs/api.md quotes the real answers', () => {
  it('Errors: the 422 example is the answer to a too-large bubble.width and an unknown key', async () => {
    const answer = await server.call('/template', {
      method: 'PUT', json: { scope: 'independent', values: { 'bubble.width': 20000, 'bubble.colour': '#fff' } },
    });
    expect(answer.status).toBe(422);
    const example = JSON_BLOCKS.find((block) => (block as { errors?: object }).errors?.hasOwnProperty('values.bubble.colour'));
    expect(example).toEqual(answer.body);
  });

  it('Premium: the 403 body is the json block the doc shows', async () => {
    const answer = await server.call('/template', { key: server.keys.carol });
    expect(answer.status).toBe(403);
    expect(JSON_BLOCKS).toContainEqual(answer.body);
  });

  it('PUT /template: a scope that does not fit the overlay is the 422 body the doc shows', async () => {
    const main = alice().overlays.Main!;
    const answer = await server.call('/template', { method: 'PUT', json: { scope: 'override', preset_id: main, values: { 'bubble.gap': 1 } } });
    expect(answer.status).toBe(422);
    // The doc's example names overlay 1; the fixture's Main may have another id.
    const asDocumented = JSON.parse(JSON.stringify(answer.body).replaceAll(`overlay ${main} `, 'overlay 1 '));
    expect(JSON_BLOCKS).toContainEqual(asDocumented);
  });

  it('PUT /template, PUT /skins, POST and DELETE /viewers/unlock-skin: the success messages', async () => {
    const template = await server.call('/template', { method: 'PUT', json: { scope: 'independent', values: { 'bubble.gap': 3 } } });
    expect(template.status).toBe(200);
    expect(JSON_BLOCKS.map((block) => (block as { message?: string }).message)).toContain(template.body.message);

    const neon = alice().skins.neon!;
    const skin = await server.call(`/skins/${neon}`, { method: 'PUT', json: { values: { 'bubble.border-width': 3 } } });
    expect(skin.status).toBe(200);
    expect(JSON_BLOCKS.map((block) => (block as { message?: string }).message)).toContain(skin.body.message);

    const vault = alice().skins.vault!;
    const unlock = await server.call('/viewers/unlock-skin', { method: 'POST', json: { twitch_username: 'viewer_one', skin_id: vault } });
    expect(unlock.status).toBe(201);
    expect(JSON_BLOCKS.map((block) => (block as { message?: string }).message)).toContain(unlock.body.message);
    const again = await server.call('/viewers/unlock-skin', { method: 'POST', json: { twitch_username: 'viewer_one', skin_id: vault } });
    expect(again.status).toBe(200);
    expect(DOCS).toContain(`The 200 message is \`${JSON.stringify(again.body.message)}\``);

    const revoke = await server.call('/viewers/unlock-skin', { method: 'DELETE', json: { twitch_username: 'viewer_one', skin_id: vault } });
    expect(revoke.status).toBe(200);
    expect(JSON_BLOCKS).toContainEqual(revoke.body);
  });

  it('the refusals the endpoints quote', async () => {
    const globalSkin = server.ids.global_skins.classic!;
    const editGlobal = await server.call(`/skins/${globalSkin}`, { method: 'PUT', json: { values: { 'bubble.gap': 1 } } });
    expect(editGlobal.status).toBe(403);
    expectQuotedMessage(editGlobal.body);

    const bobSkin = server.ids.accounts.bob!.skins.bobskin!;
    const notMine = await server.call(`/skins/${bobSkin}`, { method: 'PUT', json: { values: { 'bubble.gap': 1 } } });
    expect(notMine.status).toBe(404);
    expectQuotedMessage(notMine.body);

    const noOverlay = await server.call('/template?preset_id=999999');
    expect(noOverlay.status).toBe(404);
    expectQuotedMessage(noOverlay.body);

    const vault = alice().skins.vault!;
    const noViewer = await server.call('/viewers/unlock-skin', { method: 'POST', json: { twitch_username: 'nobody_here', skin_id: vault } });
    expect(noViewer.status).toBe(404);
    expectQuotedMessage(noViewer.body);

    const twoViewers = await server.call('/viewers/unlock-skin', {
      method: 'POST', json: { twitch_username: 'viewer_one', twitch_user_id: '1002', skin_id: vault },
    });
    expect(twoViewers.status).toBe(422);
    expect(DOCS).toContain(`\`${JSON.stringify(twoViewers.body.message)}\``);

    const retired = await server.call('/viewers/unlock-skin', { method: 'POST', json: { twitch_username: 'viewer_one', skin_id: alice().skins.retired! } });
    expect(retired.status).toBe(422);
    expect(DOCS).toContain(`\`${JSON.stringify(retired.body.errors.skin_id[0])}\``);

    const noGrant = await server.call('/viewers/unlock-skin', { method: 'DELETE', json: { twitch_username: 'viewer_one', skin_id: vault } });
    expect(noGrant.status).toBe(404);
    expectQuotedMessage(noGrant.body);

    const tooBig = await server.call('/template', { method: 'PUT', raw: `{"values":{"x":"${'y'.repeat(70_000)}"}}` });
    expect(tooBig.status).toBe(413);
    expectQuotedMessage(tooBig.body);
  });
});
