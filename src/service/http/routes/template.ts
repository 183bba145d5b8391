// GET /template and PUT /template.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StyleOperations, TemplateSettingsView } from '../../types.ts';
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

export function registerTemplateRoutes(app: FastifyInstance, operations: StyleOperations): void {
  app.get('/template', async (request, reply) => {
    const answer = await operations.getTemplateEncoded(callerOf(request).id, presetIdQuery(request), encodeTemplateAnswer);
    return reply.type('application/json; charset=utf-8').send(answer);
  });

  app.put('/template', async (request) => {
    let body = jsonObjectBody(request.body);
    // Like the reference service's merged input: a query preset_id counts when the body has none
    // (a null one counts as left out, as everywhere else).
    const queryPresetId = presetIdQuery(request);
    if (queryPresetId !== undefined && (body.preset_id === undefined || body.preset_id === null)) body = { ...body, preset_id: queryPresetId };
    const data = await operations.updateTemplate(callerOf(request).id, body);
    return { message: TEMPLATE_UPDATED_MESSAGE, data };
  });
}
