// Property: whatever body a write endpoint gets (wrong types, huge numbers, deep nesting,
// __proto__, long strings, arrays for objects, broken JSON), it never answers 5xx, every error is
// the {message} envelope, and nothing stored changes unless the answer is 2xx.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../src/service/settings/catalog.ts';
import { apiTestServerForSuite } from './api-test-server.ts';

const server = apiTestServerForSuite({ rateLimit: { perMinute: 1_000_000 } });

const RUNS = 80;

const deepArray = fc.integer({ min: 50, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const deepObject = fc.integer({ min: 50, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** A JSON text for a value that no setting takes, or barely takes. */
const hostileValueText = fc.oneof(
  fc.constantFrom(
    '1e308', '-1e308', '1e400', '9007199254740993', '-0', '0.5', '10000', '10001', '-10001', '-10000', 'true', 'null',
    '"#fff"', '"#GGGGGG"', '"transparent"', '"solid"', '"400"', '400', '"Inter"', '""', '"linear-gradient(red, blue)"',
    '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '[]', '{}',
    JSON.stringify('x'.repeat(20_000)), JSON.stringify('é'.repeat(40_000)),
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  deepArray,
  deepObject,
);

const settingKey = fc.oneof(
  fc.constantFrom(...SETTINGS.map((s) => s.key)),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'bubble.', '', '.', 'bubble.width.x', 'x'.repeat(300)),
  fc.string({ maxLength: 20 }),
);

/** A catalog key with a value its type takes, so bodies also get past validation (and mix with bad pairs). */
const validPair = fc.constantFrom(...SETTINGS).chain((spec) => {
  const json = (arbitrary: fc.Arbitrary<unknown>) => arbitrary.map((v) => [spec.key, JSON.stringify(v)] as const);
  switch (spec.type) {
    case 'integer': return json(fc.integer({ min: spec.min ?? 0, max: spec.max ?? 10_000 }));
    case 'color': return json(fc.constantFrom('#fff', '#ABCDEF', 'transparent', '#11223344', '#0000'));
    case 'select': return json(fc.constantFrom(...(spec.options ?? [])));
    case 'toggle': return json(fc.boolean());
    case 'string': return json(fc.constantFrom('Inter', 'roboto', 'monospace'));
    case 'gradient': return json(fc.constantFrom('', 'linear-gradient(red, blue)', 'radial-gradient(#fff, #000)'));
  }
});

/** `values` as JSON text: usually an object of setting keys, sometimes something else entirely. */
const valuesText = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: validPair }, { weight: 1, arbitrary: fc.tuple(settingKey, hostileValueText) }), { minLength: 1, maxLength: 6 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`) },
  { weight: 1, arbitrary: hostileValueText },
);

const idText = (ids: () => number[]) => fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ids().map(String)) },
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '1.5', '1e20', '"1"', 'null', '[]', '{}', '9007199254740993', 'true') },
);

/** A body built from fields as JSON texts; each field may be left out. */
function objectText(fields: Record<string, fc.Arbitrary<string>>) {
  const entries = Object.entries(fields).map(([name, arbitrary]) => fc.option(arbitrary.map((v) => `${JSON.stringify(name)}:${v}`), { nil: undefined }));
  return fc.tuple(...entries).map((parts) => `{${parts.filter((p) => p !== undefined).join(',')}}`);
}

/** Bodies that are not even an object of fields. */
const brokenBody = fc.oneof(
  fc.constantFrom('', '{', '{"a":}', 'nul', '[]', '[{}]', '"x"', '42', 'null', '{"__proto__":{"polluted":1}}', '\u0000', '{}'),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  deepArray,
  deepObject,
);

const identifierText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('"viewer_one"', '"viewer_two"', '"VIEWER_TWO"', '"1001"', '"1002"', '"4242"', '"1003"') },
  { weight: 1, arbitrary: fc.constantFrom('"nobody"', '""', '1001', 'null', '[]', '{}', JSON.stringify('v'.repeat(10_000))) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)) },
);

interface WriteEndpoint {
  name: string;
  method: string;
  path: fc.Arbitrary<string>;
  body: fc.Arbitrary<string>;
}

function endpoints(): WriteEndpoint[] {
  const alice = server.ids.accounts.alice!;
  const bob = server.ids.accounts.bob!;
  const overlayIds = () => [...Object.values(alice.overlays), ...Object.values(bob.overlays)];
  const skinIds = () => [...Object.values(alice.skins), ...Object.values(bob.skins), ...Object.values(server.ids.global_skins)];
  const scope = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('"source"', '"override"', '"independent"') },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom('"Independent"', '""', '1', 'null', '[]'), hostileValueText) },
  );
  const unlockBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.oneof(
        objectText({ twitch_username: identifierText, skin_id: idText(skinIds) }),
        objectText({ twitch_user_id: identifierText, skin_id: idText(skinIds) }),
        objectText({ twitch_username: identifierText, twitch_user_id: identifierText, skin_id: idText(skinIds) }),
      ),
    },
    { weight: 1, arbitrary: brokenBody },
  );
  return [
    {
      name: 'PUT /template',
      method: 'PUT',
      path: fc.oneof(fc.constant('/template'), idText(overlayIds).map((id) => `/template?preset_id=${encodeURIComponent(id)}`)),
      body: fc.oneof(
        { weight: 4, arbitrary: objectText({ scope, values: valuesText, preset_id: idText(overlayIds) }) },
        { weight: 1, arbitrary: brokenBody },
      ),
    },
    {
      name: 'PUT /skins/{skin_id}',
      method: 'PUT',
      path: fc.oneof(
        fc.constantFrom(...skinIds()).map((id) => `/skins/${id}`),
        fc.constantFrom('/skins/0', '/skins/-1', '/skins/abc', '/skins/1e3', '/skins/99999999999999999999'),
      ),
      body: fc.oneof({ weight: 4, arbitrary: objectText({ values: valuesText }) }, { weight: 1, arbitrary: brokenBody }),
    },
    { name: 'POST /viewers/unlock-skin', method: 'POST', path: fc.constant('/viewers/unlock-skin'), body: unlockBody },
    { name: 'DELETE /viewers/unlock-skin', method: 'DELETE', path: fc.constant('/viewers/unlock-skin'), body: unlockBody },
  ];
}

describe('hostile bodies on every write endpoint', () => {
  it.each(['PUT /template', 'PUT /skins/{skin_id}', 'POST /viewers/unlock-skin', 'DELETE /viewers/unlock-skin'])(
    '%s never answers 5xx and changes nothing unless it answers 2xx', async (name) => {
    const endpoint = endpoints().find((e) => e.name === name)!;
    await fc.assert(
      fc.asyncProperty(endpoint.path, endpoint.body, async (path, raw) => {
        const before = server.dump();
        const answer = await server.call(path, { method: endpoint.method, raw });
        expect(answer.status, `${endpoint.name} ${path} ${raw.slice(0, 200)}`).toBeLessThan(500);
        expect([200, 201, 403, 404, 413, 422]).toContain(answer.status);
        if (answer.status >= 300) {
          expect(typeof answer.body?.message).toBe('string');
          expect(server.dump()).toEqual(before);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });
});
