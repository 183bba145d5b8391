// The chat on screen: one element per message, built with createElement/createTextNode only,
// so HTML in chat is shown as text and never interpreted. Messages keep their chatter's data so
// a style change (a skin assigned to a role, a viewer's pick) restyles messages already shown.
import type { ChatBadge, ChatMessageEvent, OverlayPageOptions, OverlayStyle } from '../../service/push/protocol.ts';
import { resolveMessageSkin } from '../chat-roles.ts';
import { avatarLetterColorOn } from '../avatar-letter.ts';
import { CLASSES, skinClassName, USER_COLOR_PROPERTY, USER_LETTER_COLOR_PROPERTY } from '../dom-classes.ts';
import { emoteImageUrl, emoteSegments } from '../emote-segments.ts';

const USER_COLOR = /^#[0-9a-f]{6}$/i;
const HTTP_URL = /^https?:\/\//i;
/** Characters that draw nothing (zero-width, direction marks, spaces, controls, lone marks). */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Z}\p{M}]/gu;
/** A strong-direction character (any letter, or a left/right-to-left mark) for dir=auto to go by. */
const STRONG = /[\p{L}\u200e\u200f\u061c]/u;

interface ShownMessage {
  element: HTMLElement;
  event: ChatMessageEvent;
  skinClass: string | null;
}

export class ChatView {
  readonly #container: HTMLElement;
  readonly #messages: ShownMessage[] = [];
  #style: OverlayStyle | null = null;
  #options: OverlayPageOptions | null = null;

  constructor(container: HTMLElement) {
    this.#container = container;
    // Mark each element whose entrance ran (see .cs-entered in overlay.css), or was cut short: an
    // element hidden while it entered (avatar.show turned off) would play it again once shown.
    const entered = (event: Event): void => {
      if (event.target instanceof Element) event.target.classList.add(CLASSES.entered);
    };
    container.addEventListener('animationend', entered);
    container.addEventListener('animationcancel', entered);
  }

  get size(): number {
    return this.#messages.length;
  }

  /**
   * Call before a new style sheet goes in: an entrance still running keeps its keyframes, pinned
   * on the element, where a changed entrance (or a skin's) would start it over. Once it has run,
   * .cs-entered takes over as for any other.
   */
  holdRunningEntrances(): void {
    for (const { element } of this.#messages) {
      for (const animation of element.getAnimations({ subtree: true })) {
        const target = (animation.effect as KeyframeEffect | null)?.target;
        if (animation instanceof CSSAnimation && target instanceof HTMLElement) target.style.animationName = animation.animationName;
      }
    }
  }

  setStyle(style: OverlayStyle, options: OverlayPageOptions | null): void {
    this.#style = style;
    if (options !== null) this.#options = options;
    for (const shown of this.#messages) this.#applySkin(shown);
    this.#trim();
  }

  add(event: ChatMessageEvent): void {
    const element = this.#render(event);
    const shown: ShownMessage = { element, event, skinClass: null };
    this.#applySkin(shown);
    this.#messages.push(shown);
    this.#container.append(element);
    this.#trim();
    markStillElementsEntered(element);
  }

  deleteMessage(messageId: string): void {
    this.#remove((shown) => shown.event.id === messageId);
  }

  clearUser(userId: string): void {
    this.#remove((shown) => shown.event.userId === userId);
  }

  clear(): void {
    this.#remove(() => true);
  }

  #remove(predicate: (shown: ShownMessage) => boolean): void {
    for (let i = this.#messages.length - 1; i >= 0; i--) {
      const shown = this.#messages[i]!;
      if (!predicate(shown)) continue;
      shown.element.remove();
      this.#messages.splice(i, 1);
    }
  }

  #trim(): void {
    const max = this.#options?.maxMessages ?? 50;
    while (this.#messages.length > max) this.#messages.shift()!.element.remove();
  }

  #applySkin(shown: ShownMessage): void {
    const skinId = this.#style === null ? null : resolveMessageSkin(shown.event, this.#style);
    const skinClass = skinId === null ? null : skinClassName(skinId);
    if (skinClass === shown.skinClass) return;
    if (shown.skinClass !== null) shown.element.classList.remove(shown.skinClass);
    if (skinClass !== null) shown.element.classList.add(skinClass);
    shown.skinClass = skinClass;
  }

  #render(event: ChatMessageEvent): HTMLElement {
    const root = el('div', CLASSES.message);
    root.dataset.messageId = event.id;
    root.dataset.userId = event.userId;
    if (event.color !== null && USER_COLOR.test(event.color)) {
      root.style.setProperty(USER_COLOR_PROPERTY, event.color);
      root.style.setProperty(USER_LETTER_COLOR_PROPERTY, avatarLetterColorOn(event.color));
    }
    // A display name of invisible characters alone would leave the message nameless.
    const name = visibleInitial(event.displayName) === null ? event.login : event.displayName;
    root.append(renderAvatar(event.avatarUrl, name));

    const body = el('div', CLASSES.body);
    const head = el('div', CLASSES.head);
    const badges = el('span', CLASSES.badges);
    for (const badge of event.badges) badges.append(renderBadge(badge));
    const username = el('span', CLASSES.username);
    username.textContent = name;
    setAutoDirection(username, name);
    head.append(badges, username);

    const text = el('div', CLASSES.text);
    const emoteBase = this.#options?.emoteBaseUrl ?? 'https://static-cdn.jtvnw.net/emoticons/v2';
    const segments = emoteSegments(event.text, event.emotes);
    setAutoDirection(text, segments.map((segment) => (segment.type === 'text' ? segment.text : '')).join(''));
    for (const segment of segments) {
      if (segment.type === 'text') {
        text.append(document.createTextNode(segment.text));
      } else {
        const img = el('img', CLASSES.emote);
        img.src = emoteImageUrl(emoteBase, segment.id);
        img.alt = segment.code;
        img.title = segment.code;
        img.decoding = 'async';
        // An emote the CDN does not answer (offline, removed) shows as its code, not a broken image:
        // in a <bdi>, which dir=auto passes over, so the code does not turn the line's direction.
        img.addEventListener('error', () => img.replaceWith(isolated(segment.code)), { once: true });
        text.append(img);
      }
    }
    body.append(head, text);
    root.append(body);
    return root;
  }
}

function renderAvatar(avatarUrl: string | null, name: string): HTMLElement {
  const avatar = el('div', CLASSES.avatar);
  const initial = el('span', CLASSES.avatarInitial);
  initial.textContent = (visibleInitial(name) ?? '?').toUpperCase();
  if (avatarUrl !== null && HTTP_URL.test(avatarUrl)) {
    const img = el('img');
    img.src = avatarUrl;
    img.alt = '';
    img.referrerPolicy = 'no-referrer';
    img.addEventListener('error', () => img.replaceWith(initial), { once: true });
    avatar.append(img);
  } else {
    avatar.append(initial);
  }
  return avatar;
}

/** The first character of `text` that draws something, or null. */
function visibleInitial(text: string): string | null {
  return Array.from(text.replace(INVISIBLE, ''))[0] ?? null;
}

function renderBadge(badge: ChatBadge): HTMLElement {
  const title = badge.title ?? badge.set;
  if (badge.imageUrl != null && HTTP_URL.test(badge.imageUrl)) {
    const img = el('img', CLASSES.badge);
    img.src = badge.imageUrl;
    img.alt = title;
    img.title = title;
    // As with the avatar: an image that does not load falls back to the initial.
    img.addEventListener('error', () => img.replaceWith(badgeInitial(badge.set, title)), { once: true });
    return img;
  }
  return badgeInitial(badge.set, title);
}

/** A badge shown as its set's initial (no image, or one that did not load). */
function badgeInitial(set: string, title: string): HTMLElement {
  const text = el('span', `${CLASSES.badge}-text`);
  text.textContent = (Array.from(set)[0] ?? '?').toUpperCase();
  text.title = title;
  return text;
}

/**
 * Each chatter's text runs in its own direction (an Arabic or Hebrew line keeps its punctuation
 * at its end, an English line in a right-to-left overlay too), taken from its first letter. Text
 * without a letter (emotes, digits, punctuation) keeps the bubble's direction: dir=auto alone
 * would make it left-to-right. Emote codes do not count: they show as images, or isolated in a <bdi>.
 */
function setAutoDirection(element: HTMLElement, text: string): void {
  if (STRONG.test(text)) element.dir = 'auto';
}

/** `text` in a <bdi>: its own direction, and not counted by an enclosing dir=auto. */
function isolated(text: string): HTMLElement {
  const bdi = el('bdi');
  bdi.textContent = text;
  return bdi;
}

/** Elements of a new message without an entrance animation count as entered at once. */
function markStillElementsEntered(root: HTMLElement): void {
  requestAnimationFrame(() => {
    for (const element of [root, ...root.querySelectorAll<HTMLElement>(`.${CLASSES.avatar}, .${CLASSES.username}, .${CLASSES.text}`)]) {
      if (element.getAnimations().length === 0) element.classList.add(CLASSES.entered);
    }
  });
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className !== undefined) element.className = className;
  return element;
}
