// GET /skins and PUT /skins/{skin_id}.
import type { FastifyInstance } from 'fastify';
import type { StyleOperations } from '../../types.ts';
import { jsonObjectBody, positiveIntegerParam } from '../request-input.ts';
import { callerOf } from '../authentication.ts';

export const SKIN_UPDATED_MESSAGE = 'Skin settings updated.';

export function registerSkinRoutes(app: FastifyInstance, operations: StyleOperations): void {
  app.get('/skins', async (request) => {
    const presetId = positiveIntegerParam('preset_id', (request.query as Record<string, unknown>).preset_id);
    const data = await operations.listSkins(callerOf(request).id, presetId);
    return { data };
  });

  app.put('/skins/:skin_id', async (request) => {
    const skinId = positiveIntegerParam('skin_id', (request.params as Record<string, unknown>).skin_id);
    const body = jsonObjectBody(request.body);
    const data = await operations.updateSkin(callerOf(request).id, skinId!, body);
    return { message: SKIN_UPDATED_MESSAGE, data };
  });
}
