// Finding a viewer from the spec's identifiers (DESIGN.md "Viewers and entitlements").
import type { StoreReader } from './store/store.ts';
import type { ViewerRecord } from './store/records.ts';
import type { ViewerIdentifiers } from './request-fields.ts';
import { notFound } from './request-fields.ts';
import { validationError } from './types.ts';

export const VIEWER_NOT_FOUND = 'The viewer does not have an account on the service.';
export const VIEWERS_DIFFER = 'The twitch_username and twitch_user_id fields name different viewers.';

/** Path identifier: all digits -> user id first, then login; otherwise login, any case. */
export async function findViewerByIdentifier(reader: StoreReader, identifier: string): Promise<ViewerRecord | null> {
  if (identifier === '') return null;
  if (/^[0-9]+$/.test(identifier)) {
    const byId = await reader.findViewerByTwitchUserId(identifier);
    if (byId !== null) return byId;
  }
  return reader.findViewerByLogin(identifier.toLowerCase());
}

/** Body identifiers: 404 for an unknown viewer; when both are given they must name the same one (else 422). */
export async function resolveViewer(reader: StoreReader, identifiers: ViewerIdentifiers): Promise<ViewerRecord> {
  const byId = identifiers.twitchUserId === undefined ? undefined : await reader.findViewerByTwitchUserId(identifiers.twitchUserId);
  const byLogin = identifiers.twitchUsername === undefined
    ? undefined
    : await reader.findViewerByLogin(identifiers.twitchUsername.toLowerCase());
  if (byId !== undefined && byLogin !== undefined) {
    if (byId === null && byLogin === null) throw notFound(VIEWER_NOT_FOUND);
    if (byId === null || byLogin === null || byId.id !== byLogin.id) throw validationError({ twitch_username: [VIEWERS_DIFFER] });
    return byId;
  }
  const viewer = byId ?? byLogin ?? null;
  if (viewer === null) throw notFound(VIEWER_NOT_FOUND);
  return viewer;
}

/** The login to answer with; a viewer whose old login was taken by someone else has none, so its id. */
export function viewerLogin(viewer: ViewerRecord): string {
  return viewer.twitchUsername ?? viewer.twitchUserId;
}
