// Effective settings -> CSS: the one function the overlay page and the tests share (the page
// loads this very module, type-stripped). Each catalog element maps to one part of the DOM
// (dom-classes.ts); every key of the catalog has a visible effect on the text below, including
// keys that only take effect under their `-advanced` toggle.
//
// Scoping: without `scopeClass` the CSS is overlay-wide, with it every rule is limited to
// messages carrying that class (a skin's messages) and the container rules are left out: a skin
// styles its own messages, not the chat as a whole. Scoped selectors are one class more
// specific, so they win over the overlay-wide rules.
import { BOX_ELEMENTS, SETTINGS, TEXT_ELEMENTS } from '../service/settings/catalog.ts';
import type { Element, SettingValue } from '../service/settings/catalog.ts';
import type { FontSource } from '../service/settings/fonts.ts';
import { ADVANCED_GROUPS } from './advanced-keys.ts';
import { AVATAR_LETTER_COLOR, avatarLetterColorOn } from './avatar-letter.ts';
import { CLASSES, USER_COLOR_PROPERTY, USER_LETTER_COLOR_PROPERTY } from './dom-classes.ts';
import { ENTRANCE_TO_ANIMATE_CSS } from './entrance-animations.ts';
import { readSetting } from './setting-read.ts';

export interface SettingsCssOptions {
  /** Class name (no dot) the rules are scoped to, e.g. `cs-skin-5`; overlay-wide when absent. */
  scopeClass?: string;
  /**
   * Keys the scope (a skin) sets itself (skinLayer's `skinKeys`). A skin that sets
   * `username.font-color` draws names in it, over the chatter's Twitch colour.
   */
  scopeKeys?: ReadonlySet<string>;
  /** Font family -> catalog source; `generic` families are written unquoted. */
  fontSources?: Readonly<Record<string, FontSource>>;
}

type Get = (key: string) => SettingValue;
type Declarations = Array<readonly [property: string, value: string]>;

/** Longhand order of the CSS shorthands the per-part keys feed. */
const SHORTHAND_PART_ORDER: Readonly<Record<string, readonly string[]>> = {
  'border-radius': ['top-left', 'top-right', 'bottom-right', 'bottom-left'],
  padding: ['top', 'right', 'bottom', 'left'],
};

const MESSAGE_FLOW: Readonly<Record<string, Declarations>> = {
  // DOM order is arrival order; the newest message sits where the flow starts.
  'bottom-up': [['flex-direction', 'column'], ['justify-content', 'flex-end']],
  'top-down': [['flex-direction', 'column-reverse'], ['justify-content', 'flex-end']],
  'left-to-right': [['flex-direction', 'row-reverse'], ['justify-content', 'flex-end']],
  'right-to-left': [['flex-direction', 'row'], ['justify-content', 'flex-end']],
};

const ALIGN_SELF: Readonly<Record<string, string>> = { left: 'flex-start', center: 'center', right: 'flex-end' };

const AVATAR_LAYOUT: Readonly<Record<string, Declarations>> = {
  left: [['flex-direction', 'row'], ['align-items', 'flex-start']],
  right: [['flex-direction', 'row-reverse'], ['align-items', 'flex-start']],
  center: [['flex-direction', 'column'], ['align-items', 'center']],
};

const USERNAME_LAYOUT: Readonly<Record<string, { head: Declarations; text: Declarations }>> = {
  'above-message': {
    head: [['display', 'flex'], ['margin-inline-end', '0']],
    text: [['display', 'block']],
  },
  inline: {
    head: [['display', 'inline-flex'], ['margin-inline-end', '0.3em']],
    text: [['display', 'inline']],
  },
};

const GENERIC_FALLBACK = 'sans-serif';
/** Behind the avatar's letter for a chatter without a name colour (and no avatar background). */
const DEFAULT_AVATAR_COLOR = '#6b6b7b';

/**
 * Keys that style the chat container as a whole. Only the overlay's settings use them; a
 * skin's value for them has no effect (a skin styles its own messages).
 */
export const OVERLAY_WIDE_KEYS: readonly string[] = Object.freeze([
  ...SETTINGS.filter((s) => s.element === 'chat').map((s) => s.key),
  'bubble.message-direction',
  'bubble.gap',
]);

export function settingsToCss(settings: Readonly<Record<string, unknown>>, options: SettingsCssOptions = {}): string {
  const get: Get = (key) => readSetting(settings, key);
  const present = presentElements(settings);
  const scoped = options.scopeClass !== undefined;
  if (scoped && !/^[A-Za-z_][\w-]*$/.test(options.scopeClass!)) {
    throw new Error(`settingsToCss: scopeClass must be a plain class name, got ${JSON.stringify(options.scopeClass)}`);
  }
  const root = scoped ? `.${CLASSES.message}.${options.scopeClass}` : `.${CLASSES.message}`;
  const sel = {
    chat: `.${CLASSES.chat}`,
    bubble: root,
    avatar: `${root} .${CLASSES.avatar}`,
    avatarInitial: `${root} .${CLASSES.avatarInitial}`,
    body: `${root} .${CLASSES.body}`,
    head: `${root} .${CLASSES.head}`,
    badges: `${root} .${CLASSES.badges}`,
    username: `${root} .${CLASSES.username}`,
    message: `${root} .${CLASSES.text}`,
  };
  const rules = new RuleSet();

  if (!scoped && present.has('chat')) {
    rules.add(sel.chat, [['padding', uniformOrParts(get, 'chat.padding')]]);
  }
  if (present.has('bubble')) {
    if (!scoped) {
      rules.add(sel.chat, [
        ...MESSAGE_FLOW[String(get('bubble.message-direction'))]!,
        ['gap', px(get('bubble.gap'))],
      ]);
    }
    rules.add(sel.bubble, [
      ['width', get('bubble.full-width') === true ? '100%' : px(get('bubble.width'))],
      ['align-self', ALIGN_SELF[String(get('bubble.alignment'))]!],
    ]);
    rules.add(sel.body, [['direction', String(get('bubble.direction'))]]);
  }
  for (const element of BOX_ELEMENTS) {
    if (present.has(element)) rules.add(sel[element], boxDeclarations(get, element));
  }
  if (present.has('avatar')) {
    const size = Number(get('avatar.size'));
    rules.add(sel.avatar, [
      ['display', get('avatar.show') === true ? 'flex' : 'none'],
      ['width', px(size)],
      ['height', px(size)],
      ['font-size', px(Math.round(size * 0.45))],
    ]);
    rules.add(sel.bubble, AVATAR_LAYOUT[String(get('avatar.position'))]!);
    // The letter shown without a picture fills the avatar: on the colour the name shows (a skin's
    // own name colour, else the chatter's Twitch colour), unless the avatar has a background of its
    // own, which would otherwise never show. Both ways, so a skin's scoped rule overrides the overlay's.
    // The letter shows on whichever colour it is drawn on (avatar-letter.ts); a gradient's
    // colours are not read, so on one it stays white.
    const ownColor = String(get('avatar.background-color'));
    const ownGradient = get('avatar.background-gradient') !== '';
    const ownBackground = ownColor !== 'transparent' || ownGradient;
    const skinNameColor = present.has('username') && scopeSetsNameColor(options) ? String(get('username.font-color')) : null;
    const letterColor = ownGradient ? AVATAR_LETTER_COLOR
      : ownBackground ? avatarLetterColorOn(ownColor)
        : skinNameColor === null ? `var(${USER_LETTER_COLOR_PROPERTY}, ${AVATAR_LETTER_COLOR})` : avatarLetterColorOn(skinNameColor);
    rules.add(sel.avatarInitial, [
      ['background', ownBackground ? 'none' : skinNameColor ?? `var(${USER_COLOR_PROPERTY}, ${DEFAULT_AVATAR_COLOR})`],
      ['color', letterColor],
    ]);
  } else {
    rules.add(sel.avatar, [['display', 'none']]);
  }
  if (present.has('username')) {
    const layout = USERNAME_LAYOUT[String(get('username.position'))]!;
    rules.add(sel.head, layout.head);
    if (present.has('message')) rules.add(sel.message, layout.text);
    // Badges are sized in em of the name they sit beside.
    rules.add(sel.badges, [['font-size', px(get('username.font-size'))]]);
  } else {
    rules.add(sel.username, [['display', 'none']]);
  }
  for (const element of TEXT_ELEMENTS) {
    if (present.has(element)) rules.add(sel[element], typographyDeclarations(get, element, options));
  }
  if (present.has('message') === false) rules.add(sel.message, [['display', 'none']]);
  if (present.has('badges')) {
    rules.add(sel.badges, [
      ['display', get('badges.show') === true ? 'inline-flex' : 'none'],
      ['order', get('badges.position') === 'after-name' ? '2' : '0'],
    ]);
  } else {
    rules.add(sel.badges, [['display', 'none']]);
  }
  return rules.toString();
}

/** Elements with at least one key in `settings`: a template leaves out whole elements. */
function presentElements(settings: Readonly<Record<string, unknown>>): Set<Element> {
  const present = new Set<Element>();
  for (const spec of SETTINGS) {
    if (Object.hasOwn(settings, spec.key)) present.add(spec.element as Element);
  }
  return present;
}

function boxDeclarations(get: Get, element: string): Declarations {
  const k = (property: string): string => `${element}.${property}`;
  const gradient = String(get(k('background-gradient')));
  const entrance = ENTRANCE_TO_ANIMATE_CSS.get(String(get(k('animation-entrance'))))!;
  const shadow = [
    get(k('box-shadow-inset')) === true ? 'inset' : '',
    px(get(k('box-shadow-offset-x'))),
    px(get(k('box-shadow-offset-y'))),
    px(get(k('box-shadow-blur-radius'))),
    px(get(k('box-shadow-spread-radius'))),
    String(get(k('box-shadow-color'))),
  ].filter((part) => part !== '').join(' ');
  return [
    ['background-color', String(get(k('background-color')))],
    // The gradient is an image, so it is drawn over the background colour.
    ['background-image', gradient === '' ? 'none' : gradient],
    ['border-width', px(get(k('border-width')))],
    ['border-style', String(get(k('border-style')))],
    ['border-color', String(get(k('border-color')))],
    ['border-radius', uniformOrParts(get, k('border-radius'))],
    ['box-shadow', shadow],
    ['padding', px(get(k('padding')))],
    ['animation-name', entrance.keyframes],
    ['animation-duration', `${Number(get(k('animation-duration')))}ms`],
    ['animation-delay', `${Number(get(k('animation-delay')))}ms`],
    ['animation-timing-function', String(get(k('animation-easing')))],
    ['animation-fill-mode', 'both'],
    ...Object.entries(entrance.extra),
  ];
}

function typographyDeclarations(get: Get, element: string, options: SettingsCssOptions): Declarations {
  const k = (property: string): string => `${element}.${property}`;
  const color = String(get(k('font-color')));
  // The name shows in the chatter's Twitch colour; font-color is for chatters without one. A
  // skin's own name colour is the exception: it is what the skin is for (a viewer who picked a
  // gold-name skin sees a gold name), so it wins over the chatter's colour.
  const chatterColorFirst = element === 'username' && !scopeSetsNameColor(options);
  return [
    ['font-style', String(get(k('font-style')))],
    ['text-decoration', String(get(k('text-decoration')))],
    ['text-transform', String(get(k('text-transform')))],
    ['font-size', px(get(k('font-size')))],
    ['color', chatterColorFirst ? `var(${USER_COLOR_PROPERTY}, ${color})` : color],
    ['font-family', fontFamilyValue(String(get(k('font-family'))), options.fontSources)],
    ['font-weight', String(get(k('font-weight')))],
    ['text-shadow', [
      px(get(k('text-shadow-offset-x'))),
      px(get(k('text-shadow-offset-y'))),
      px(get(k('text-shadow-blur-radius'))),
      String(get(k('text-shadow-color'))),
    ].join(' ')],
    ['-webkit-text-stroke', `${px(get(k('text-stroke-width')))} ${String(get(k('text-stroke-color')))}`],
    // Draw the stroke under the fill so it thickens the outline instead of eating the glyphs.
    ['paint-order', 'stroke fill'],
  ];
}

/**
 * Whether the scope (a skin) sets `username.font-color` itself: its name colour then wins over
 * the chatter's Twitch colour, on the name and on the avatar's letter alike.
 */
function scopeSetsNameColor(options: SettingsCssOptions): boolean {
  return options.scopeKeys?.has('username.font-color') === true;
}

/** `E.X` or, while `E.X-advanced` is true, the per-part keys as one shorthand value. */
function uniformOrParts(get: Get, uniformKey: string): string {
  const group = ADVANCED_GROUPS.find((g) => g.uniform === uniformKey);
  if (group === undefined || get(group.toggle) !== true) return px(get(uniformKey));
  const shorthand = uniformKey.slice(uniformKey.indexOf('.') + 1);
  const order = SHORTHAND_PART_ORDER[shorthand];
  if (order === undefined) throw new Error(`settingsToCss: no shorthand order for ${uniformKey}`);
  return order.map((part) => px(get(`${uniformKey}-${part}`))).join(' ');
}

/**
 * The CSS 2 generic behind each newer generic family: a browser without the newer one (Chromium
 * has no ui-monospace outside macOS, OBS's browser source included) would otherwise fall back to
 * its default serif font, whatever the family was meant to look like.
 */
const OLDER_GENERIC: Readonly<Record<string, string>> = {
  'system-ui': 'sans-serif', 'ui-sans-serif': 'sans-serif', 'ui-rounded': 'sans-serif', emoji: 'sans-serif',
  'ui-serif': 'serif', math: 'serif', fangsong: 'serif', 'ui-monospace': 'monospace',
};

export function fontFamilyValue(family: string, fontSources?: Readonly<Record<string, FontSource>>): string {
  if (fontSources?.[family] === 'generic') {
    const older = Object.hasOwn(OLDER_GENERIC, family) ? OLDER_GENERIC[family] : undefined;
    return older === undefined ? family : `${family}, ${older}`;
  }
  const quoted = `"${family.trim().replace(/["\\\n\r\f]/g, '')}"`;
  return `${quoted}, ${GENERIC_FALLBACK}`;
}

function px(value: SettingValue): string {
  return `${Number(value)}px`;
}

/** Rules in first-seen selector order; declarations of one selector merged in order. */
class RuleSet {
  readonly #rules = new Map<string, Declarations>();

  add(selector: string, declarations: Declarations): void {
    const existing = this.#rules.get(selector);
    if (existing === undefined) this.#rules.set(selector, [...declarations]);
    else existing.push(...declarations);
  }

  toString(): string {
    let css = '';
    for (const [selector, declarations] of this.#rules) {
      css += `${selector} {\n${declarations.map(([p, v]) => `  ${p}: ${v};\n`).join('')}}\n`;
    }
    return css;
  }
}
