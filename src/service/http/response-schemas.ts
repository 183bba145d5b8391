// JSON schemas of the success envelopes that Fastify serialises with fast-json-stringify.
// Only the small fixed-shape answers have one: for the answers that carry settings maps (open
// objects of ~150 keys), V8's JSON.stringify measured about 4x faster than fast-json-stringify
// (9 us against 33 us for a template view; see bench/api.bench.ts), so those routes have none
// and their shapes are the service's typed results (src/service/types.ts).

const skinRef = {
  type: 'object',
  required: ['id', 'name', 'slug'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, slug: { type: 'string' } },
} as const;

const unlockData = {
  type: 'object',
  required: ['twitch_username', 'skin'],
  properties: {
    twitch_username: { type: 'string' },
    skin: {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
    },
  },
} as const;

const dataEnvelope = (data: object) =>
  ({ type: 'object', required: ['data'], properties: { data } }) as const;
const messageDataEnvelope = (data: object) =>
  ({ type: 'object', required: ['message', 'data'], properties: { message: { type: 'string' }, data } }) as const;

export const RESPONSE_SCHEMAS = {
  unlockSkin: { 200: messageDataEnvelope(unlockData), 201: messageDataEnvelope(unlockData) },
  revokeSkin: {
    200: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  },
  viewerSkins: { 200: dataEnvelope({ type: 'array', items: skinRef }) },
  healthz: {
    200: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string' }, components: { type: 'object', additionalProperties: { type: 'string' } } },
    },
  },
} as const;
