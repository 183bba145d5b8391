// POST and DELETE /viewers/unlock-skin, GET /viewers/{identifier}/skins.
import type { FastifyInstance } from 'fastify';
import type { StyleOperations } from '../../types.ts';
import { jsonObjectBody } from '../request-input.ts';
import { RESPONSE_SCHEMAS } from '../response-schemas.ts';
import { callerOf } from '../authentication.ts';

export const UNLOCK_MESSAGES = {
  created: 'Skin unlocked for the viewer.',
  alreadyHeld: 'The viewer already has this skin.',
  revoked: 'Skin access revoked.',
} as const;

export function registerViewerRoutes(app: FastifyInstance, operations: StyleOperations): void {
  app.post('/viewers/unlock-skin', { schema: { response: RESPONSE_SCHEMAS.unlockSkin } }, async (request, reply) => {
    const result = await operations.unlockSkin(callerOf(request).id, jsonObjectBody(request.body));
    reply.code(result.created ? 201 : 200);
    return {
      message: result.created ? UNLOCK_MESSAGES.created : UNLOCK_MESSAGES.alreadyHeld,
      data: { twitch_username: result.twitch_username, skin: result.skin },
    };
  });

  app.delete('/viewers/unlock-skin', { schema: { response: RESPONSE_SCHEMAS.revokeSkin } }, async (request) => {
    await operations.revokeSkin(callerOf(request).id, jsonObjectBody(request.body));
    return { message: UNLOCK_MESSAGES.revoked };
  });

  app.get('/viewers/:identifier/skins', { schema: { response: RESPONSE_SCHEMAS.viewerSkins } }, async (request) => {
    const { identifier } = request.params as { identifier: string };
    const data = await operations.listViewerSkins(callerOf(request).id, identifier);
    return { data };
  });
}
