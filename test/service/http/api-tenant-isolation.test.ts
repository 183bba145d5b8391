// Tenant isolation: alice's key against every one of bob's overlays, skins and viewer grants
// answers 404, exactly like an id that does not exist, and bob's data stays byte for byte.
import { beforeAll, describe, expect, it } from 'vitest';
import { apiTestServerForSuite } from './api-test-server.ts';
import type { CallInit } from './api-test-server.ts';

const server = apiTestServerForSuite({ rateLimit: { perMinute: 10_000 } });
let before: Record<string, unknown[]>;
beforeAll(() => {
  before = server.dump();
});

const MISSING = 999_999;
const bob = () => server.ids.accounts.bob!;

interface Probe {
  name: string;
  /** The request against bob's resource, and the same request against an id nobody has. */
  against: () => [string, CallInit];
  missing: () => [string, CallInit];
}

const values = { 'bubble.gap': 2 };
const PROBES: Probe[] = [
  ...(['Bob main', 'Bob synced'] as const).flatMap((overlay): Probe[] => [
    {
      name: `GET /template of ${overlay}`,
      against: () => [`/template?preset_id=${bob().overlays[overlay]}`, {}],
      missing: () => [`/template?preset_id=${MISSING}`, {}],
    },
    {
      name: `GET /skins of ${overlay}`,
      against: () => [`/skins?preset_id=${bob().overlays[overlay]}`, {}],
      missing: () => [`/skins?preset_id=${MISSING}`, {}],
    },
    ...(['independent', 'override', 'source'] as const).map((scope): Probe => ({
      name: `PUT /template scope ${scope} of ${overlay}`,
      against: () => ['/template', { method: 'PUT', json: { scope, preset_id: bob().overlays[overlay], values } }],
      missing: () => ['/template', { method: 'PUT', json: { scope, preset_id: MISSING, values } }],
    })),
    {
      name: `PUT /template with the query preset_id of ${overlay}`,
      against: () => [`/template?preset_id=${bob().overlays[overlay]}`, { method: 'PUT', json: { scope: 'independent', values } }],
      missing: () => [`/template?preset_id=${MISSING}`, { method: 'PUT', json: { scope: 'independent', values } }],
    },
  ]),
  {
    name: "PUT /skins of bob's skin",
    against: () => [`/skins/${bob().skins.bobskin}`, { method: 'PUT', json: { values } }],
    missing: () => [`/skins/${MISSING}`, { method: 'PUT', json: { values } }],
  },
  {
    name: "POST unlock of bob's skin by login",
    against: () => ['/viewers/unlock-skin', { method: 'POST', json: { twitch_username: 'viewer_two', skin_id: bob().skins.bobskin } }],
    missing: () => ['/viewers/unlock-skin', { method: 'POST', json: { twitch_username: 'viewer_two', skin_id: MISSING } }],
  },
  {
    name: "POST unlock of bob's skin for the viewer bob granted it to",
    against: () => ['/viewers/unlock-skin', { method: 'POST', json: { twitch_user_id: '1001', skin_id: bob().skins.bobskin } }],
    missing: () => ['/viewers/unlock-skin', { method: 'POST', json: { twitch_user_id: '1001', skin_id: MISSING } }],
  },
  {
    name: "DELETE bob's API grant",
    against: () => ['/viewers/unlock-skin', { method: 'DELETE', json: { twitch_username: 'viewer_one', skin_id: bob().skins.bobskin } }],
    missing: () => ['/viewers/unlock-skin', { method: 'DELETE', json: { twitch_username: 'viewer_one', skin_id: MISSING } }],
  },
  {
    name: "DELETE bob's viewer purchase",
    against: () => ['/viewers/unlock-skin', { method: 'DELETE', json: { twitch_user_id: '1002', skin_id: bob().skins.bobskin } }],
    missing: () => ['/viewers/unlock-skin', { method: 'DELETE', json: { twitch_user_id: '1002', skin_id: MISSING } }],
  },
];

describe("alice's key against bob's data", () => {
  it.each(PROBES.map((p) => [p.name, p] as const))('%s answers 404 like a missing id', async (_name, probe) => {
    const [path, init] = probe.against();
    const answer = await server.call(path, { ...init, key: server.keys.alice });
    expect(answer.status).toBe(404);
    const [missingPath, missingInit] = probe.missing();
    const missing = await server.call(missingPath, { ...missingInit, key: server.keys.alice });
    expect(missing.status).toBe(404);
    expect(answer.body).toEqual(missing.body);
  });

  it("lists none of bob's grants for a viewer bob granted a skin to", async () => {
    const answer = await server.call('/viewers/viewer_one/skins', { key: server.keys.alice });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: [] });
  });

  it("never lists bob's skins", async () => {
    const answer = await server.call('/skins', { key: server.keys.alice });
    const ids = answer.body.data.map((s: { id: number }) => s.id);
    expect(ids).not.toContain(bob().skins.bobskin);
  });

  it("left every row unchanged, and bob still sees his own data", async () => {
    expect(server.dump()).toEqual(before);
    const own = await server.call(`/template?preset_id=${bob().overlays['Bob main']}`, { key: server.keys.bob });
    expect(own.status).toBe(200);
    expect(own.body.data.settings_values['bubble.gap']).toBe(4);
    const grants = await server.call('/viewers/viewer_one/skins', { key: server.keys.bob });
    expect(grants.body).toEqual({ data: [{ id: bob().skins.bobskin, name: 'Bob skin', slug: 'bobskin' }] });
  });
});
