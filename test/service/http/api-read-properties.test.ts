// Property: whatever query string or path identifier a read endpoint gets (any text, escapes
// good and bad, repeats, huge numbers), it never answers 5xx, every error is the {message}
// envelope (422 with `errors` on the field), and nothing stored changes.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiTestServerForSuite } from './api-test-server.ts';

const server = apiTestServerForSuite({ rateLimit: { perMinute: 1_000_000 } });
let before: Record<string, unknown[]>;
beforeAll(() => {
  before = server.dump();
});

const RUNS = 150;

/** Text as it may appear in a URL: sometimes escaped properly, sometimes raw or half-escaped. */
const urlText = fc.oneof(
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(
    '', '0', '-1', '1.5', '1e3', '0x1', '+1', ' 1', '1 ', '%00', '%E0%A4%A', '%', '%%', '%2F', '..', '1;2',
    '99999999999999999999', '9007199254740993', 'null', '[]', 'viewer_one', 'VIEWER_TWO', '1001', '4242', 'x'.repeat(100),
  ),
  fc.stringMatching(/^[0-9a-zA-Z_%.\-+~]{0,30}$/),
);

const presetQuery = fc.oneof(
  fc.constant(''),
  urlText.map((v) => `?preset_id=${v}`),
  fc.tuple(urlText, urlText).map(([a, b]) => `?preset_id=${a}&preset_id=${b}`),
  fc.tuple(urlText, urlText).map(([name, value]) => `?${name}=${value}`),
);

const READS: Array<{ name: string; path: fc.Arbitrary<string> }> = [
  { name: 'GET /template', path: presetQuery.map((q) => `/template${q}`) },
  { name: 'GET /skins', path: presetQuery.map((q) => `/skins${q}`) },
  { name: 'GET /viewers/{identifier}/skins', path: urlText.map((id) => `/viewers/${id}/skins`) },
];

describe('hostile input on every read endpoint', () => {
  it.each(READS.map((r) => [r.name, r] as const))('%s never answers 5xx, answers errors in the envelope, and changes nothing', async (_name, read) => {
    await fc.assert(
      fc.asyncProperty(read.path, async (path) => {
        const answer = await server.call(path);
        expect(answer.status, path).toBeLessThan(500);
        expect([200, 404, 422], path).toContain(answer.status);
        if (answer.status !== 200) {
          expect(typeof answer.body?.message, path).toBe('string');
          const keys = Object.keys(answer.body).sort();
          expect(keys, path).toEqual(answer.status === 422 ? ['errors', 'message'] : ['message']);
        } else {
          expect(Object.keys(answer.body), path).toEqual(['data']);
        }
      }),
      { numRuns: RUNS },
    );
    expect(server.dump()).toEqual(before);
  });
});
