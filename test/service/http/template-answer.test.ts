// The PUT /template answer is written by hand (the settings map serialised once when the source
// values are the same object): it must be exactly what JSON.stringify makes of { message, data }.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeTemplateUpdateAnswer, TEMPLATE_UPDATED_MESSAGE } from '../../../src/service/http/routes/template.ts';
import type { SeedResult } from '../../../src/service/seed.ts';
import type { TemplateUpdateResult } from '../../../src/service/types.ts';
import type { Harness } from '../core/service-harness.ts';
import { openWorld } from '../core/service-harness.ts';

const plain = (data: TemplateUpdateResult) => JSON.stringify({ message: TEMPLATE_UPDATED_MESSAGE, data });

let h: Harness & { ids: SeedResult };
beforeEach(async () => {
  h = await openWorld();
});
afterEach(() => h.close());

describe('encodeTemplateUpdateAnswer', () => {
  it('is JSON.stringify({ message, data }) for every scope of the real service', async () => {
    const alice = h.ids.accounts.alice!;
    const results = [
      await h.service.updateTemplate(alice.id, { scope: 'independent', values: { 'bubble.width': 433, 'message.font-size': 19 } }),
      await h.service.updateTemplate(alice.id, { scope: 'override', preset_id: alice.overlays.Second, values: { 'bubble.gap': 3 } }),
      await h.service.updateTemplate(alice.id, { scope: 'source', preset_id: alice.overlays.Second, values: { 'bubble.width': 480 } }),
      await h.service.updateTemplate(alice.id, { scope: 'independent', preset_id: alice.overlays.Ticker, values: { 'message.font-size': 20 } }),
    ];
    for (const data of results) expect(encodeTemplateUpdateAnswer(data)).toBe(plain(data));
  });

  it('gives an overlay without a sync source one object for its settings and source values', async () => {
    const alice = h.ids.accounts.alice!;
    const written = await h.service.updateTemplate(alice.id, { scope: 'independent', values: { 'bubble.width': 433 } });
    expect(written.source_values).toBe(written.settings_values);
    const synced = await h.service.updateTemplate(alice.id, { scope: 'override', preset_id: alice.overlays.Second, values: { 'bubble.gap': 3 } });
    expect(synced.source_values).not.toBe(synced.settings_values);
  });

  it('serialises source values of their own whenever they are another object, equal or not', () => {
    const settings = { a: 1, b: 'x', c: true };
    const cases: TemplateUpdateResult['source_values'][] = [
      settings,
      { ...settings },
      { a: 1, b: 'x', c: false },
      { a: 1, c: true, b: 'x' },
      { a: 1, b: 'x' },
      {},
    ];
    for (const source of cases) {
      const data: TemplateUpdateResult = {
        settings_values: settings, source_values: source, override_values: { b: 'x' }, scope: 'override', preset_id: 7,
      };
      expect(encodeTemplateUpdateAnswer(data)).toBe(plain(data));
    }
  });
});
