// The overlay client over the bundled service, in the same process: no HTTP, no key, no rate
// limit (the host acts as the account itself). Everything else matches the HTTP API: request
// bodies travel as the JSON the wire would carry, URL parameters are checked as the routes check
// them, answers are projected onto the spec's fields, and refusals become OverlayStyleError
// with the status the API would answer.
import type { StyleOperations } from '../service/types.ts';
import { ServiceError } from '../service/types.ts';
import type { OverlayStyleClient, SettingsPatch, SkinGrantRequest, UpdateTemplateRequest } from './overlay-style-client.ts';
import { fromServiceError, OverlayStyleError } from './overlay-style-error.ts';
import { checkIdentifier, checkIdParam, encodeJsonBody } from './request-checks.ts';
import {
  skinUpdateResultShape, skinViewShape, templateSettingsViewShape, templateUpdateResultShape, unlockDataShape,
  viewerSkinRefShape,
} from './response-shapes.ts';
import type { z } from 'zod';

/** The body exactly as the HTTP API would receive it: encoded, size-checked, decoded afresh. */
function asWireBody(body: object): unknown {
  return JSON.parse(encodeJsonBody(body));
}

/** Maps whatever the service threw to the error the HTTP client would throw for the same call. */
export function toOverlayStyleError(error: unknown): OverlayStyleError {
  if (error instanceof OverlayStyleError) return error;
  if (error instanceof ServiceError) return fromServiceError(error);
  // The HTTP layer answers any unexpected failure as 500 "Server Error."; so does this.
  return new OverlayStyleError({ status: 500, message: 'Server Error.', cause: error });
}

function project<T extends z.ZodType>(shape: T, value: unknown, operation: string): z.output<T> {
  const parsed = shape.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new OverlayStyleError({
    status: 500,
    kind: 'invalid_response',
    message: `The bundled service's ${operation} answer does not match the spec's shape.`,
    cause: parsed.error,
  });
}

export function createInProcessClient(operations: StyleOperations, accountId: number): OverlayStyleClient {
  if (!Number.isSafeInteger(accountId) || accountId < 1) {
    throw new TypeError(`createInProcessClient: accountId must be a positive integer, got ${String(accountId)}`);
  }

  async function call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toOverlayStyleError(error);
    }
  }

  return {
    getTemplate: (presetId?: number) => call(async () => {
      const view = await operations.getTemplate(accountId, checkIdParam('preset_id', presetId));
      return project(templateSettingsViewShape, view, 'getTemplate');
    }),

    updateTemplate: (request: UpdateTemplateRequest) => call(async () => {
      const result = await operations.updateTemplate(accountId, asWireBody(request));
      return project(templateUpdateResultShape, result, 'updateTemplate');
    }),

    listSkins: (presetId?: number) => call(async () => {
      const skins = await operations.listSkins(accountId, checkIdParam('preset_id', presetId));
      return project(skinViewShape.array(), skins, 'listSkins');
    }),

    updateSkin: (skinId: number, values: SettingsPatch) => call(async () => {
      const id = checkIdParam('skin_id', skinId)!;
      const result = await operations.updateSkin(accountId, id, asWireBody({ values }));
      return project(skinUpdateResultShape, result, 'updateSkin');
    }),

    unlockSkin: (request: SkinGrantRequest) => call(async () => {
      const result = await operations.unlockSkin(accountId, asWireBody(request));
      return { created: result.created === true, ...project(unlockDataShape, result, 'unlockSkin') };
    }),

    revokeSkin: (request: SkinGrantRequest) => call(async () => {
      await operations.revokeSkin(accountId, asWireBody(request));
    }),

    listViewerSkins: (identifier: string) => call(async () => {
      const skins = await operations.listViewerSkins(accountId, checkIdentifier(identifier));
      return project(viewerSkinRefShape.array(), skins, 'listViewerSkins');
    }),
  };
}
