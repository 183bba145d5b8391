// The live push protocol between the service and the overlay page (docs/push.md). Types and
// constants only, no Node imports: the page loads this module too.
import type { SettingsValues } from '../settings/catalog.ts';
import type { FontSource } from '../settings/fonts.ts';
import type { Role } from '../types.ts';

/** A skin one of the overlay's messages may render with. */
export interface PushedSkin {
  id: number;
  name: string;
  slug: string;
  /** The skin's effective settings (template defaults with its overrides on top). */
  settings: SettingsValues;
  /** Only the keys the skin changes; the page renders these on top of the overlay's settings. */
  overrides: SettingsValues;
}

/** Everything the page needs to style the overlay; sent whole in snapshots and updates. */
export interface OverlayStyle {
  template: { id: number; slug: string; name: string };
  /** The overlay's effective settings (GET /template `settings_values`). */
  settings: SettingsValues;
  /** Every skin assigned to a role or picked by a viewer on the channel. */
  skins: PushedSkin[];
  /** Role -> skin id, for roles that have one. */
  roleSkins: Partial<Record<Role, number>>;
  /** Twitch user id -> the skin id that viewer picked on this channel. */
  viewerSkins: Record<string, number>;
  /** Every font family the settings and skins use -> where the page loads it from. */
  fonts: Record<string, FontSource>;
}

/** Page options the server decides (config), sent with each snapshot. */
export interface OverlayPageOptions {
  /** Messages kept on screen; older ones are removed. */
  maxMessages: number;
  /** Base of emote image URLs: `<base>/<emote id>/default/dark/2.0`. */
  emoteBaseUrl: string;
  /** Google Fonts CSS2 endpoint, or null when loading web fonts is disabled. */
  fontStylesheetBaseUrl: string | null;
  /** The server sends a heartbeat at least this often; the page reconnects after 2.5x silence. */
  heartbeatMs: number;
}

export interface ChatBadge {
  /** Badge set, e.g. `moderator`, `subscriber` (IRC `badges` tag: `set/version`). */
  set: string;
  version: string;
  /** Image to show; without one the page shows the set's initial. */
  imageUrl?: string | null;
  title?: string | null;
}

export interface ChatMessageEvent {
  type: 'message';
  /** Message id (IRC `id` tag); message deletion names it. */
  id: string;
  /** Twitch user id of the chatter. */
  userId: string;
  login: string;
  displayName: string;
  /** The chatter's name colour `#rrggbb`, or null when none is set. */
  color: string | null;
  text: string;
  /** The raw IRC `emotes` tag, e.g. `25:0-4,12-16/1902:6-10`; `` for none. */
  emotes: string;
  badges: ChatBadge[];
  avatarUrl: string | null;
}

export interface ChatMessageDeletedEvent { type: 'message-deleted'; messageId: string }
/** A timeout or ban: every message of the user goes. */
export interface ChatUserClearedEvent { type: 'user-cleared'; userId: string }
export interface ChatClearedEvent { type: 'chat-cleared' }

export type ChatEvent = ChatMessageEvent | ChatMessageDeletedEvent | ChatUserClearedEvent | ChatClearedEvent;

export type UpdateCause = 'template' | 'skin' | 'viewer-skin' | 'external';

export interface SnapshotFrame {
  type: 'snapshot';
  version: number;
  overlay: { id: number; name: string };
  style: OverlayStyle;
  options: OverlayPageOptions;
}

export interface UpdateFrame {
  type: 'update';
  version: number;
  causes: UpdateCause[];
  style: OverlayStyle;
}

export interface ChatFrame {
  type: 'chat';
  version: number;
  event: ChatEvent;
}

/** Sent every heartbeat interval; `version` is the overlay's latest, so a dropped frame shows up as a gap. */
export interface HeartbeatFrame {
  type: 'heartbeat';
  version: number;
}

export type ServerFrame = SnapshotFrame | UpdateFrame | ChatFrame | HeartbeatFrame;

/**
 * Frames the server queues in the same event-loop turn go out in one WebSocket message, one
 * JSON frame per line, in order (JSON text never holds a raw newline, so the split is exact).
 */
export const FRAME_SEPARATOR = '\n';

/** The JSON texts of the frames in one server message. */
export function splitFrames(message: string): string[] {
  return message.split(FRAME_SEPARATOR);
}

/** The only client -> server frame: ask for a fresh snapshot (after a version gap). */
export interface ResyncFrame { type: 'resync' }

/** WebSocket close codes the gateway uses besides the standard ones. */
export const CLOSE_CODES = Object.freeze({
  /** Server shutting down; the page reconnects. (Standard 1001 "going away".) */
  goingAway: 1001,
  /** The client sent something the protocol does not know. (Standard 1008 "policy violation".) */
  badFrame: 1008,
  /** The client reads too slowly: a frame that may not be dropped did not fit its buffer. */
  tooSlow: 4008,
  /** The overlay's token no longer names an overlay (deleted). */
  overlayGone: 4004,
  /** The overlay's style could not be read for the socket's snapshot; the page reconnects. (Standard 1013 "try again later".) */
  tryAgain: 1013,
});

/** Path of an overlay's page; its WebSocket is the same plus /ws (docs/push.md). */
export function overlayPagePath(token: string): string {
  return `/overlay/${encodeURIComponent(token)}`;
}
