// The settings catalog: every style key of the spec as data.
// Validation, defaults, CSS rendering and docs/settings.md all derive from this table;
// nothing else in the code base lists setting keys by hand.

export type SettingType = 'integer' | 'color' | 'select' | 'toggle' | 'string' | 'gradient';
export type SettingValue = number | string | boolean;
export type SettingsValues = Record<string, SettingValue>;

export interface SettingSpec {
  /** `element.property`, e.g. `bubble.border-width`. */
  readonly key: string;
  readonly element: string;
  readonly property: string;
  readonly type: SettingType;
  readonly default: SettingValue;
  /** Inclusive bounds, integers only. */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values, selects only. */
  readonly options?: readonly string[];
  readonly description: string;
  /**
   * Settings of the same element that, at some value, keep this one from showing: a border of
   * style `none` has no visible width, a background gradient covers the background colour. Any
   * one of them hiding it is enough. Used where a skin sits on the overlay (overlay/setting-read.ts):
   * a skin that sets this key and leaves such a setting alone is drawn with its own value of it,
   * not the overlay's hiding one. Documented in docs/settings.md ("Skins on the overlay"). Only
   * paint hides paint here: the streamer's switches (avatar.show, badges.show, full-width, an
   * entrance of none) are never undone by a skin.
   */
  readonly hiddenWhen?: readonly Mask[];
}

/** `property` (of the same element) is, or with `isNot` is anything but, the value. */
export type Mask =
  | { readonly property: string; readonly is: SettingValue; readonly why: string }
  | { readonly property: string; readonly isNot: SettingValue; readonly why: string };

/** Whether `mask` hides its key while its property has `value`. */
export function maskHides(mask: Mask, value: SettingValue): boolean {
  return 'is' in mask ? value === mask.is : value !== mask.isNot;
}

export const BOX_ELEMENTS = ['bubble', 'avatar', 'username', 'message'] as const;
export const TEXT_ELEMENTS = ['username', 'message'] as const;
export const ELEMENTS = ['chat', 'bubble', 'avatar', 'username', 'message', 'badges'] as const;
export type Element = (typeof ELEMENTS)[number];

export const INTEGER_MAX = 10_000;

export const ENTRANCE_ANIMATIONS = [
  'none', 'fade-in', 'fade-in-up', 'fade-in-down', 'fade-in-left', 'fade-in-right',
  'slide-in-up', 'slide-in-down', 'slide-in-left', 'slide-in-right',
  'bounce-in', 'bounce-in-up', 'bounce-in-down', 'zoom-in', 'zoom-in-up',
  'flip-in-x', 'flip-in-y', 'rotate-in', 'jack-in-the-box', 'roll-in', 'light-speed-in-right',
] as const;

export const EASINGS = ['ease-out', 'ease-in', 'ease-in-out', 'linear', 'ease'] as const;
export const BORDER_STYLES = ['none', 'solid', 'dashed', 'dotted', 'double'] as const;
export const FONT_WEIGHTS = ['300', '400', '500', '600', '700', '800', '900'] as const;

/** A row of the spec's tables, before it is stamped onto each element it applies to. */
type Row = (
  | { property: string; type: 'integer'; default: number; min?: number; max?: number; description: string }
  | { property: string; type: 'color' | 'gradient' | 'string'; default: string; description: string }
  | { property: string; type: 'select'; default: string; options: readonly string[]; description: string }
  | { property: string; type: 'toggle'; default: boolean; description: string }
) & { hiddenWhen?: readonly Mask[] };

const px = (description: string, dflt = 0, min = 0): Row =>
  ({ property: '', type: 'integer', default: dflt, min, max: INTEGER_MAX, description });

function row(property: string, r: Row, ...hiddenWhen: Mask[]): Row {
  return hiddenWhen.length === 0 ? { ...r, property } : { ...r, property, hiddenWhen: [...(r.hiddenWhen ?? []), ...hiddenWhen] };
}

const STYLE_NONE: Mask = { property: 'border-style', is: 'none', why: 'a border of style none is not drawn' };
const NO_BORDER_WIDTH: Mask = { property: 'border-width', is: 0, why: 'a border of width 0 is not drawn' };
const CLEAR_BORDER: Mask = { property: 'border-color', is: 'transparent', why: 'a transparent border is not seen' };
const CLEAR_BOX_SHADOW: Mask = { property: 'box-shadow-color', is: 'transparent', why: 'a transparent shadow is not seen' };
const CLEAR_TEXT_SHADOW: Mask = { property: 'text-shadow-color', is: 'transparent', why: 'a transparent shadow is not seen' };
const advancedOn = (uniform: string): Mask => ({ property: `${uniform}-advanced`, is: true, why: `${uniform}-advanced draws the per-part keys instead` });
const advancedOff = (uniform: string): Mask => ({ property: `${uniform}-advanced`, is: false, why: `without ${uniform}-advanced the uniform key is drawn instead` });

/** Shared by bubble, avatar, username and message. */
const boxRows = (element: (typeof BOX_ELEMENTS)[number]): Row[] => [
  row('background-color', { property: '', type: 'color', default: 'transparent', description: 'Background colour' },
    { property: 'background-gradient', isNot: '', why: 'the gradient is drawn over the colour' }),
  row('background-gradient', { property: '', type: 'gradient', default: '', description: 'Background gradient, drawn over the background colour; empty for none' },
    { property: 'background-color', isNot: 'transparent', why: "the colour fills the gradient's see-through parts" }),
  row('border-width', px('Border width in px'), STYLE_NONE, CLEAR_BORDER),
  row('border-color', { property: '', type: 'color', default: 'transparent', description: 'Border colour' }, STYLE_NONE, NO_BORDER_WIDTH),
  row('border-style', { property: '', type: 'select', default: 'solid', options: BORDER_STYLES, description: 'Border line style' }, NO_BORDER_WIDTH, CLEAR_BORDER),
  row('border-radius', px('Uniform corner radius in px (ignored while border-radius-advanced is true)'), advancedOn('border-radius')),
  row('border-radius-advanced', { property: '', type: 'toggle', default: false, description: 'Use the four per-corner radius keys instead of border-radius' }),
  row('border-radius-top-left', px('Top-left corner radius in px (with border-radius-advanced)'), advancedOff('border-radius')),
  row('border-radius-top-right', px('Top-right corner radius in px (with border-radius-advanced)'), advancedOff('border-radius')),
  row('border-radius-bottom-right', px('Bottom-right corner radius in px (with border-radius-advanced)'), advancedOff('border-radius')),
  row('border-radius-bottom-left', px('Bottom-left corner radius in px (with border-radius-advanced)'), advancedOff('border-radius')),
  row('box-shadow-offset-x', px('Box shadow horizontal offset in px', 0, -INTEGER_MAX), CLEAR_BOX_SHADOW),
  row('box-shadow-offset-y', px('Box shadow vertical offset in px', 0, -INTEGER_MAX), CLEAR_BOX_SHADOW),
  row('box-shadow-blur-radius', px('Box shadow blur radius in px'), CLEAR_BOX_SHADOW),
  row('box-shadow-spread-radius', px('Box shadow spread radius in px', 0, -INTEGER_MAX), CLEAR_BOX_SHADOW),
  row('box-shadow-color', { property: '', type: 'color', default: '#000000', description: 'Box shadow colour' }),
  row('box-shadow-inset', { property: '', type: 'toggle', default: false, description: 'Draw the box shadow inside the box' }, CLEAR_BOX_SHADOW),
  row('animation-entrance', {
    property: '', type: 'select', default: element === 'bubble' ? 'slide-in-up' : 'none',
    options: ENTRANCE_ANIMATIONS, description: 'Entrance animation when a message appears',
  }),
  row('animation-duration', px('Entrance animation duration in ms', 750)),
  row('animation-delay', px('Entrance animation delay in ms')),
  row('animation-easing', { property: '', type: 'select', default: 'ease-out', options: EASINGS, description: 'Entrance animation timing function' }),
  row('padding', px('Inner spacing in px')),
];

const chatRows: Row[] = [
  row('padding', px('Uniform inner spacing of the chat container in px (ignored while padding-advanced is true)')),
  row('padding-advanced', { property: '', type: 'toggle', default: false, description: 'Use the four per-side padding keys instead of padding' }),
  row('padding-top', px('Top padding in px (with padding-advanced)')),
  row('padding-right', px('Right padding in px (with padding-advanced)')),
  row('padding-bottom', px('Bottom padding in px (with padding-advanced)')),
  row('padding-left', px('Left padding in px (with padding-advanced)')),
];

const bubbleRows: Row[] = [
  row('direction', { property: '', type: 'select', default: 'ltr', options: ['ltr', 'rtl'], description: 'Text direction inside a bubble' }),
  row('message-direction', {
    property: '', type: 'select', default: 'bottom-up',
    options: ['bottom-up', 'top-down', 'left-to-right', 'right-to-left'], description: 'Direction in which new messages flow',
  }),
  row('full-width', { property: '', type: 'toggle', default: false, description: 'Bubbles stretch to the container width' }),
  row('alignment', { property: '', type: 'select', default: 'left', options: ['left', 'center', 'right'], description: 'Horizontal alignment of bubbles' }),
  row('gap', px('Gap between bubbles in px', 10)),
  row('width', px('Bubble width in px', 400)),
];

const avatarRows: Row[] = [
  row('show', { property: '', type: 'toggle', default: true, description: 'Show the chatter avatar' }),
  row('position', { property: '', type: 'select', default: 'right', options: ['left', 'center', 'right'], description: 'Avatar position in the bubble' }),
  row('size', px('Avatar size in px', 60)),
];

const usernameRows: Row[] = [
  row('position', { property: '', type: 'select', default: 'above-message', options: ['above-message', 'inline'], description: 'Username above the message or inline before it' }),
];

const typographyRows: Row[] = [
  row('font-style', { property: '', type: 'select', default: 'normal', options: ['normal', 'italic'], description: 'Font style' }),
  row('text-decoration', { property: '', type: 'select', default: 'none', options: ['none', 'underline'], description: 'Text decoration' }),
  row('text-transform', { property: '', type: 'select', default: 'none', options: ['none', 'uppercase', 'lowercase', 'capitalize'], description: 'Text case transform' }),
  row('font-size', px('Font size in px', 14)),
  row('font-color', { property: '', type: 'color', default: '#ffffff', description: 'Text colour' }),
  row('font-family', { property: '', type: 'string', default: 'Inter', description: 'Font family, from the font catalog' }),
  row('font-weight', { property: '', type: 'select', default: '400', options: FONT_WEIGHTS, description: 'Font weight (the JSON number is accepted too)' }),
  row('text-shadow-offset-x', px('Text shadow horizontal offset in px'), CLEAR_TEXT_SHADOW),
  row('text-shadow-offset-y', px('Text shadow vertical offset in px'), CLEAR_TEXT_SHADOW),
  row('text-shadow-blur-radius', px('Text shadow blur radius in px'), CLEAR_TEXT_SHADOW),
  row('text-shadow-color', { property: '', type: 'color', default: '#000000', description: 'Text shadow colour' }),
  row('text-stroke-width', px('Text outline width in px'), { property: 'text-stroke-color', is: 'transparent', why: 'a transparent outline is not seen' }),
  row('text-stroke-color', { property: '', type: 'color', default: '#000000', description: 'Text outline colour' }, { property: 'text-stroke-width', is: 0, why: 'an outline of width 0 is not drawn' }),
];

const badgesRows: Row[] = [
  row('show', { property: '', type: 'toggle', default: true, description: 'Show chat badges' }),
  row('position', { property: '', type: 'select', default: 'before-name', options: ['before-name', 'after-name'], description: 'Badges before or after the name' }),
];

function stamp(element: Element, rows: Row[]): SettingSpec[] {
  return rows.map((r) => Object.freeze({ ...r, element, key: `${element}.${r.property}` }) as SettingSpec);
}

/** Every key, in the order of the spec's tables (chat first, then per element). */
export const SETTINGS: readonly SettingSpec[] = Object.freeze([
  ...stamp('chat', chatRows),
  ...stamp('bubble', [...boxRows('bubble'), ...bubbleRows]),
  ...stamp('avatar', [...boxRows('avatar'), ...avatarRows]),
  ...stamp('username', [...boxRows('username'), ...usernameRows, ...typographyRows]),
  ...stamp('message', [...boxRows('message'), ...typographyRows]),
  ...stamp('badges', badgesRows),
]);

export const SETTINGS_BY_KEY: ReadonlyMap<string, SettingSpec> = new Map(SETTINGS.map((s) => [s.key, s]));

/** The catalog's own defaults, one object, frozen. */
export const CATALOG_DEFAULTS: Readonly<SettingsValues> = Object.freeze(
  Object.fromEntries(SETTINGS.map((s) => [s.key, s.default])),
);
