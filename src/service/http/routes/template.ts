// GET /template and PUT /template.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StyleOperations, TemplateSettingsView, TemplateUpdateResult } from '../../types.ts';
import { callerOf } from '../authentication.ts';
import { jsonObjectBody, positiveIntegerParam } from '../request-input.ts';

export const TEMPLATE_UPDATED_MESSAGE = 'Template settings updated.';

function presetIdQuery(request: FastifyRequest): number | undefined {
  return positiveIntegerParam('preset_id', (request.query as Record<string, unknown>).preset_id);
}

/**
 * The GET answer's bytes. One module-level function, so the service's view cache keeps its
 * result with the overlay's view: an unchanged overlay is answered without serialising again.
 */
const encodeTemplateAnswer = (data: TemplateSettingsView): Buffer => Buffer.from(JSON.stringify({ data }));

/**
 * The PUT answer's JSON: exactly JSON.stringify({ message, data }), but the settings map's text is
 * used again for the source values when they are the same object, as templateSettingsView makes
 * them for an overlay without a sync source (the scope independent). Each map is some 4 KB of
 * JSON, serialised on every write.
 */
export function encodeTemplateUpdateAnswer(data: TemplateUpdateResult): string {
  const settings = JSON.stringify(data.settings_values);
  const source = data.source_values === data.settings_values ? settings : JSON.stringify(data.source_values);
  return `{"message":${JSON.stringify(TEMPLATE_UPDATED_MESSAGE)},"data":{"settings_values":${settings},"source_values":${source},`
    + `"override_values":${JSON.stringify(data.override_values)},"scope":${JSON.stringify(data.scope)},"preset_id":${JSON.stringify(data.preset_id)}}}`;
}

export function registerTemplateRoutes(app: FastifyInstance, operations: StyleOperations): void {
  app.get('/template', async (request, reply) => {
    const answer = await operations.getTemplateEncoded(callerOf(request).id, presetIdQuery(request), encodeTemplateAnswer);
    return reply.type('application/json; charset=utf-8').send(answer);
  });

  app.put('/template', async (request, reply) => {
    let body = jsonObjectBody(request.body);
    // Like the reference service's merged input: a query preset_id counts when the body has none
    // (a null one counts as left out, as everywhere else).
    const queryPresetId = presetIdQuery(request);
    if (queryPresetId !== undefined && (body.preset_id === undefined || body.preset_id === null)) body = { ...body, preset_id: queryPresetId };
    const data = await operations.updateTemplate(callerOf(request).id, body);
    // Text with its JSON content type: Fastify sends it as it is, without serialising again.
    return reply.type('application/json; charset=utf-8').send(encodeTemplateUpdateAnswer(data));
  });
}
