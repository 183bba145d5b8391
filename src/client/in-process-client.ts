// The overlay client over the bundled service, in the same process: no HTTP, no key, no rate
// limit (the host acts as the account itself). Everything else matches the HTTP API: request
// bodies travel as the JSON the wire would carry, URL parameters are checked as the routes check
// them, answers are projected onto the spec's fields, and refusals become OverlayStyleError
// with the status the API would answer.
//
// It also does what only the bundled service can (no spec endpoint): signing chatters in, and the
// skins a viewer may pick and their pick, straight on the service's viewer operations.
import { mapError } from '../service/http/error-handler.ts';
import { MESSAGES } from '../service/http/error-response.ts';
import { parseJsonBody } from '../service/http/json-body.ts';
import { DEFAULT_BODY_LIMIT_BYTES, MAX_PATH_PARAM_LENGTH } from '../service/http/options.ts';
import { normalizeTwitchUserId } from '../service/operations/account-admin.ts';
import type { SkinSummary } from '../service/operations/skin-admin.ts';
import { SKIN_NOT_FOUND } from '../service/operations/skin-operations.ts';
import type { StyleService } from '../service/style-service.ts';
import type { StyleOperations, Viewer } from '../service/types.ts';
import { ServiceError, validationError } from '../service/types.ts';
import { VIEWER_NOT_FOUND } from '../service/viewer-lookup.ts';
import type {
  ChatViewer, OverlayStyleClient, PickableSkin, SettingsPatch, SkinGrantRequest, SkinPickResult, UpdateTemplateRequest,
  ViewerById,
} from './overlay-style-client.ts';
import { OverlayStyleError } from './overlay-style-error.ts';
import { checkIdentifier, checkIdParam, encodeJsonBody } from './request-checks.ts';
import {
  skinUpdateResultShape, skinViewShape, templateSettingsViewShape, templateUpdateResultShape, unlockDataShape,
  viewerSkinRefShape,
} from './response-shapes.ts';
import type { z } from 'zod';

/** What the in-process client calls: the spec's seven operations and the bundled service's viewer operations. */
export type BundledOperations = StyleOperations & Pick<
  StyleService,
  'registerViewer' | 'findViewer' | 'getSkin' | 'findSkinBySlug' | 'listPickableSkins' | 'pickSkin' | 'getPickedSkin'
>;

const VIEWER_SHAPE = 'The viewer must be an object with a twitchUserId (digits).';
const SKIN_CHOICE = 'The skin must be a skin id, a skin slug, or null for none.';

/** The Twitch user id of a viewer argument; 422 as the service words it. */
function viewerIdOf(viewer: unknown): string {
  if (typeof viewer !== 'object' || viewer === null) throw validationError({ viewer: [VIEWER_SHAPE] });
  return normalizeTwitchUserId((viewer as { twitchUserId?: unknown }).twitchUserId);
}

/**
 * The body exactly as the HTTP API would receive it: encoded, size-checked, and decoded afresh by
 * the API's own body parser (which refuses `__proto__` and `constructor.prototype` keys, 422 on body).
 */
function asWireBody(body: object): unknown {
  return parseJsonBody(encodeJsonBody(body));
}

/**
 * Maps whatever the service threw to the error the HTTP client would throw for the same call:
 * the API's own answer to it (mapError), so a refusal, a database another program holds locked
 * (503, Retry-After) and an unexpected failure (500 "Server Error.") read alike on both clients.
 */
export function toOverlayStyleError(error: unknown): OverlayStyleError {
  if (error instanceof OverlayStyleError) return error;
  const answer = mapError(error, DEFAULT_BODY_LIMIT_BYTES);
  return new OverlayStyleError({
    status: answer.status, message: answer.body.message, errors: answer.body.errors, retryAfter: answer.retryAfterSeconds, cause: error,
  });
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

export function createInProcessClient(operations: BundledOperations, accountId: number): OverlayStyleClient {
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

  /** The signed-in viewer with exactly this Twitch user id; 404 otherwise. */
  async function requireViewer(viewer: unknown): Promise<Viewer> {
    const twitchUserId = viewerIdOf(viewer);
    const found = await operations.findViewer(twitchUserId);
    // findViewer falls back to an all-digit login; here only the user id counts.
    if (found === null || found.twitchUserId !== twitchUserId) throw new ServiceError(404, VIEWER_NOT_FOUND);
    return found;
  }

  /** A skin the channel may use (its own or a global one), by id or slug; 404 otherwise. */
  async function resolveSkin(skin: unknown): Promise<SkinSummary> {
    let found: SkinSummary | null;
    if (typeof skin === 'number') {
      found = await operations.getSkin(checkIdParam('skin_id', skin)!);
    } else if (typeof skin === 'string') {
      const text = skin.trim().toLowerCase();
      found = await operations.findSkinBySlug(accountId, text) ?? await operations.findSkinBySlug(null, text);
      if (found === null && /^[0-9]{1,15}$/.test(text)) found = await operations.getSkin(Number(text));
    } else {
      throw validationError({ skin: [SKIN_CHOICE] });
    }
    if (found === null || (found.accountId !== null && found.accountId !== accountId)) throw new ServiceError(404, SKIN_NOT_FOUND);
    return found;
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
      // The API's router matches no route for a longer path segment: its routing 404, not the viewer lookup's.
      if (checkIdentifier(identifier).length > MAX_PATH_PARAM_LENGTH) throw new ServiceError(404, MESSAGES.notFound);
      const skins = await operations.listViewerSkins(accountId, identifier);
      return project(viewerSkinRefShape.array(), skins, 'listViewerSkins');
    }),

    registerViewer: (viewer: ChatViewer) => call(async () => {
      const twitchUserId = viewerIdOf(viewer);
      const { login, displayName } = viewer;
      const registered = await operations.registerViewer({ twitchUserId, login, ...(displayName === undefined ? {} : { displayName }) });
      return { twitchUserId: registered.twitchUserId, login: registered.twitchUsername, displayName: registered.displayName };
    }),

    listPickableSkins: (viewer: ViewerById) => call(async (): Promise<PickableSkin[]> => {
      const found = await requireViewer(viewer);
      const skins = await operations.listPickableSkins(accountId, found.id);
      const picked = await operations.getPickedSkin(accountId, found.twitchUserId);
      return skins.map((skin) => ({
        id: skin.id,
        name: skin.name,
        slug: skin.slug,
        description: skin.description,
        availability: skin.availability,
        templateSlug: skin.template.slug,
        picked: picked?.id === skin.id,
      }));
    }),

    pickSkin: (viewer: ViewerById, skin: number | string | null) => call(async (): Promise<SkinPickResult> => {
      const found = await requireViewer(viewer);
      const target = skin === null ? null : await resolveSkin(skin);
      const changed = await operations.pickSkin(accountId, found.id, target?.id ?? null);
      return { skin: target === null ? null : { id: target.id, name: target.name, slug: target.slug }, changed };
    }),
  };
}
