// Class names of the overlay's DOM, shared by the CSS renderer and the page's chat view so the
// two cannot drift apart.
export const CLASSES = Object.freeze({
  /** The chat container: every message is a child of it. */
  chat: 'cs-chat',
  /** One message: the bubble. */
  message: 'cs-msg',
  avatar: 'cs-avatar',
  /** Avatar fallback: the first letter of the name. */
  avatarInitial: 'cs-avatar-initial',
  /** Everything beside the avatar: head and text. */
  body: 'cs-body',
  /** Badges and name. */
  head: 'cs-head',
  badges: 'cs-badges',
  badge: 'cs-badge',
  username: 'cs-username',
  /** The message text. */
  text: 'cs-message',
  emote: 'cs-emote',
  /** Set once an element's entrance animation has run, so a later settings change does not replay it. */
  entered: 'cs-entered',
  /** "Overlay not found", shown while the server says the page's address names no overlay. */
  notice: 'cs-notice',
});

/** The class a message from a viewer with skin `skinId` carries; skin CSS is scoped to it. */
export function skinClassName(skinId: number): string {
  return `cs-skin-${skinId}`;
}

/** CSS custom property holding the chatter's Twitch colour, set inline on each message. */
export const USER_COLOR_PROPERTY = '--cs-user-color';
/** CSS custom property holding the avatar letter's colour on the chatter's colour (avatar-letter.ts). */
export const USER_LETTER_COLOR_PROPERTY = '--cs-user-letter-color';
