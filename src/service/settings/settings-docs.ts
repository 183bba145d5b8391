// docs/settings.md as a pure function of the catalog and the templates, so the page cannot
// drift from the code: write-settings-docs.ts writes it and a test compares the two.
import type { Mask, SettingSpec, SettingValue } from './catalog.ts';
import { normalizeColor } from './color.ts';
import { GENERIC_FONT_FAMILIES, SYSTEM_FONT_FAMILIES } from './fonts.ts';
import {
  DEFAULT_LINEAR_ANGLE, DEFAULT_RADIAL_POSITION, DEFAULT_RADIAL_SHAPE, DEFAULT_RADIAL_SIZE,
  LINEAR_DIRECTION_ANGLES, MAX_GRADIENT_LENGTH, MAX_GRADIENT_NUMBER, normalizeGradient,
} from './gradient.ts';
import type { Template } from './templates.ts';

export const SETTINGS_DOCS_PATH = 'docs/settings.md';

const COLOR_EXAMPLES = ['#FFF', '#0f08', '#FF000080', '#12345600', 'Transparent', 'red', '#ffff', '#12345'];

const GRADIENT_EXAMPLES = [
  '',
  'linear-gradient(red, blue)',
  'LINEAR-GRADIENT(to right, #FFF, #000)',
  'linear-gradient(to top left, red 10%, blue)',
  'linear-gradient(0.25turn, rgb(255, 0, 0), hsl(240, 100%, 50%) 80%)',
  'linear-gradient(45deg, red, gold, green, blue)',
  'linear-gradient(red 50%, blue 20%, green)',
  'linear-gradient(red 10% 30%, rgba(0, 0, 255, 0.5))',
  'radial-gradient(red, blue)',
  'radial-gradient(circle at top left, #ff0, #f00)',
  'radial-gradient(ellipse 40px 20% at 30% 70%, white, black)',
  'radial-gradient(closest-side, red, blue)',
  'repeating-linear-gradient(-45deg, black, black 10%, white 10%, white 20%)',
  'linear-gradient(right, red, blue)',
  'linear-gradient(red 10px, blue)',
  'linear-gradient(red)',
  'conic-gradient(red, blue)',
  'linear-gradient(red, blue), radial-gradient(red, blue)',
  'linear-gradient(red, var(--accent))',
];

export function renderSettingsDocs(settings: readonly SettingSpec[], templates: readonly Template[]): string {
  const lines: string[] = [
    '# Settings',
    '',
    '<!-- Generated from src/service/settings (catalog.ts, color.ts, gradient.ts, fonts.ts) and',
    '     config/templates by `npm run docs:settings`. Do not edit by hand: a test fails when this',
    '     page and the code disagree. -->',
    '',
    'Every style setting of an overlay or a skin is one key of the form `element.property`',
    `(${settings.length} keys in all). A template decides which elements, and so which keys, an`,
    'overlay uses; writing a key outside the overlay\'s template, or a key that does not exist, is',
    'refused with a 422 whose errors are keyed `values.<key>`.',
    '',
    '## Value types',
    '',
    '| Type | Accepted | Stored and answered as |',
    '|---|---|---|',
    '| integer | a JSON number with no fraction, within the key\'s range (0..10000 unless the key says otherwise); strings such as `"12"` are refused | the number |',
    '| color | see [Colours](#colours) | lowercase hex with 6 or 8 digits, or `transparent` |',
    '| select | exactly one of the listed options (case matters); `font-weight` also accepts the JSON number, e.g. `700` | the option string, e.g. `"700"` |',
    '| toggle | JSON `true` or `false` only | the boolean |',
    '| string | a font family, see [Fonts](#fonts) (font families are the only string settings) | the family in the catalog\'s spelling |',
    '| gradient | `""` or one CSS linear or radial gradient, see [Gradients](#gradients) | the normal form |',
    '',
    'In a write, `null` removes a key from the scope being written (it falls back to the inherited',
    'value). Advanced toggles (`…-advanced`) are stored like any key; while one is true the',
    'per-side or per-corner keys are drawn and the uniform key is kept but has no effect.',
    '',
    '## Colours',
    '',
    'A colour is `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` or `transparent`, in any case. It is',
    'stored lowercase with short forms expanded to 6 or 8 digits, and any colour whose alpha is',
    '`00` becomes `transparent`. Named colours and `rgb()` are not accepted as colour settings',
    '(inside gradients they are, see below).',
    '',
    '| Sent | Stored |',
    '|---|---|',
    ...COLOR_EXAMPLES.map((input) => `| ${code(input)} | ${resultCell(normalizeColor(input))} |`),
    '',
    '## Gradients',
    '',
    `A gradient setting is \`""\` (no gradient) or one CSS gradient of at most ${MAX_GRADIENT_LENGTH}`,
    'characters. It is drawn over the element\'s background colour. Input is read without regard',
    'to case or extra blanks and stored in one normal form, so two ways of writing the same',
    'gradient are the same value. The limit holds for the normal form too, which writes out every',
    'colour and stop position (`red` becomes `#ff0000 12.5%`): a gradient whose normal form would',
    `be longer than ${MAX_GRADIENT_LENGTH} characters is refused, so every stored value, as the API answers it,`,
    'can be sent back as it is.',
    '',
    'Accepted grammar (`[ ]` optional, `|` or, `…#` a comma-separated list):',
    '',
    '```',
    'gradient        = "" | linear | radial',
    'linear          = ["repeating-"] "linear-gradient(" [direction ","] stop "," stop# ")"',
    'direction       = angle | "to" side-or-corner',
    'angle           = number ("deg" | "rad" | "grad" | "turn")',
    'side-or-corner  = top | right | bottom | left | top left | top right | bottom left | bottom right',
    '                  (a corner may also be written the other way round: left top, ...)',
    'radial          = ["repeating-"] "radial-gradient(" [radial-shape ","] stop "," stop# ")"',
    'radial-shape    = shape [size] ["at" position] | extent ["at" position] | "at" position',
    'shape           = circle | ellipse',
    'size            = extent | px-length (circle) | length length (ellipse; px or %)',
    'extent          = closest-side | closest-corner | farthest-side | farthest-corner',
    '                  (contain and cover are read as closest-side and farthest-corner)',
    'position        = one or two of: length (px or %) | left | center | right | top | bottom',
    'stop            = colour [percentage [percentage]]',
    'colour          = hex colour | transparent | CSS colour name | rgb() | rgba() | hsl() | hsla()',
    '                  (the functions as CSS writes them: commas or spaces; rgb channels as 0-255',
    '                  or percentages, clamped; a hue in degrees, with or without "deg"; saturation',
    '                  and lightness in %; an alpha after a comma or "/", as 0-1 (or, in rgb, a %))',
    '```',
    '',
    'The normal form:',
    '',
    `- the function name in lowercase (\`linear-gradient\`, \`radial-gradient\`, \`repeating-linear-gradient\`, \`repeating-radial-gradient\`);`,
    `- linear: always an angle in degrees in [0, 360), ${DEFAULT_LINEAR_ANGLE}deg when none is given;`,
    `  ${directionList()}. Corners are mapped to the square's diagonal; in`,
    '  CSS a corner follows the box\'s aspect ratio, so on a non-square box the stored angle points',
    '  slightly differently. `rad`, `grad` and `turn` are converted to degrees;',
    `- radial: always \`<shape> <size> at <x> <y>\`; when absent the shape is \`${DEFAULT_RADIAL_SHAPE}\`, the size`,
    `  \`${DEFAULT_RADIAL_SIZE}\` and the position \`${DEFAULT_RADIAL_POSITION}\`; position keywords become`,
    '  percentages (left/top 0%, center 50%, right/bottom 100%);',
    '- every colour in the colour rule\'s normal form (names, `rgb()` and `hsl()` become hex; an alpha',
    '  that rounds to 00 becomes `transparent`);',
    '- every stop with an explicit percentage, fixed up as CSS does: a missing first and last',
    '  position is 0% and 100%, a position below an earlier one is raised to it, and stops without',
    '  a position are spread evenly between their neighbours; a stop with two positions becomes',
    '  two stops;',
    `- numbers with at most two decimals; positions and lengths between -${MAX_GRADIENT_NUMBER} and ${MAX_GRADIENT_NUMBER};`,
    '- `", "` between the parts.',
    '',
    'Refused: conic gradients, lists of several gradients, vendor prefixes (`-webkit-…`), the',
    'legacy direction without `to`, stop positions that are not percentages (they could not be',
    'fixed up without knowing the box size), transition hints, `var()` and `calc()`, and',
    '`currentcolor`. Repeating gradients are accepted and normalised like the others.',
    '',
    '| Sent | Stored, or why it is refused |',
    '|---|---|',
    ...GRADIENT_EXAMPLES.map((input) => {
      const result = normalizeGradient(input);
      return `| ${code(input)} | ${result.ok ? code(result.value) : `refused: ${escapeCell(result.error)}`} |`;
    }),
    '',
    '## Fonts',
    '',
    'A font family must name a family in the bundled, offline font catalog, matched without regard',
    'to case (and to repeated blanks); it is stored in the catalog\'s spelling (`open sans` becomes',
    '`Open Sans`). The catalog is:',
    '',
    '- every Google Fonts family in the `@capsizecss/metrics` package (the overlay loads these from',
    '  Google Fonts);',
    `- the system fonts ${SYSTEM_FONT_FAMILIES.map((f) => code(f.family)).join(', ')};`,
    `- the CSS generic families ${GENERIC_FONT_FAMILIES.map(code).join(', ')}.`,
    '',
    ...skinLayeringSection(settings),
    '## Templates',
    '',
    '| Id | Slug | Name | Elements | Keys | Description |',
    '|---|---|---|---|---|---|',
    ...templates.map((t) => `| ${t.id} | ${code(t.slug)} | ${escapeCell(t.name)} | ${templateElements(settings, t).join(', ')} | ${t.keys.length} | ${escapeCell(t.description)} |`),
    '',
    ...templates.flatMap((t) => templateDefaultsSection(settings, t)),
    '## Keys',
    '',
    'Defaults are the catalog\'s; where a template sets its own, the Default column says so.',
    '',
  ];
  for (const element of elementsInOrder(settings)) {
    lines.push(`### ${element}`, '', '| Key | Type | Default | Range / options | Templates | Description |', '|---|---|---|---|---|---|');
    for (const spec of settings.filter((s) => s.element === element)) {
      const users = templates.filter((t) => t.keySet.has(spec.key));
      lines.push(`| ${code(spec.key)} | ${spec.type} | ${defaultCell(spec, users)} | ${rangeCell(spec)} | ${users.map((t) => t.slug).join(', ') || '(none)'} | ${escapeCell(spec.description)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** How a skin's keys sit on the overlay's, from the catalog's `hiddenWhen` (overlay/setting-read.ts). */
function skinLayeringSection(settings: readonly SettingSpec[]): string[] {
  // One row per mask and set of elements, naming the keys that have it.
  const rows = new Map<string, { properties: string[]; mask: Mask; elements: string[] }>();
  const elementsOf = new Map<string, string[]>();
  for (const spec of settings) {
    for (const mask of spec.hiddenWhen ?? []) {
      const id = `${spec.property}\u0000${JSON.stringify(mask)}`;
      elementsOf.set(id, [...(elementsOf.get(id) ?? []), spec.element]);
    }
  }
  for (const spec of settings) {
    for (const mask of spec.hiddenWhen ?? []) {
      const elements = elementsOf.get(`${spec.property}\u0000${JSON.stringify(mask)}`)!;
      const id = `${JSON.stringify(mask)}\u0000${elements.join()}`;
      const entry = rows.get(id) ?? { properties: [], mask, elements };
      if (!entry.properties.includes(spec.property)) entry.properties.push(spec.property);
      rows.set(id, entry);
    }
  }
  const condition = (mask: Mask): string => ('is' in mask ? `is ${valueCode(mask.is)}` : `is not ${valueCode(mask.isNot)}`);
  return [
    '## Skins on the overlay',
    '',
    'A skin stores only the keys it changes: a value equal to the template default is not stored',
    '(PUT /skins drops it). A message drawn with a skin, picked by its viewer or assigned to one of',
    'their roles, shows the overlay\'s settings with the skin\'s keys on top, so the overlay\'s',
    'own changes carry into skinned messages (a skin that sets only `bubble.border-color`',
    'recolours the overlay\'s border and keeps its width and style). One rule keeps the skin\'s',
    'visible intent on screen: **where a key the skin leaves alone would, at the overlay\'s value,',
    'hide a key the skin sets, that key is drawn at the skin\'s own value** (the template default, as',
    'GET /skins shows it) for the skin\'s messages. So:',
    '',
    '- a skin that sets `bubble.background-color` shows that colour on an overlay with a',
    '  `bubble.background-gradient`: its messages are drawn without the overlay\'s gradient;',
    '- a skin that sets a background gradient draws it on its own background colour, not the',
    '  overlay\'s, so its see-through parts show what is behind the overlay, as in the skin itself;',
    '- a skin\'s border width or colour shows on an overlay whose `border-style` is `none` (drawn',
    '  `solid`), a skin\'s uniform `border-radius` on an overlay with per-corner radii, a skin\'s',
    '  shadow or outline on an overlay that made its own transparent.',
    '',
    'Only paint hides paint: the streamer\'s switches hold for skinned messages too. A skin that',
    'styles the avatar or places the badges does not show them where the overlay hides them',
    '(`avatar.show`, `badges.show` false), a skin\'s `bubble.width` does not narrow a full-width',
    'overlay\'s bubbles, and a skin\'s entrance timing brings back no entrance the overlay set to',
    '`none`; a skin that sets `avatar.show` or `badges.show` to false hides them on its messages.',
    '',
    'And a skin that sets `username.font-color` draws its chatters\' names in it, over their Twitch',
    'name colour (the overlay\'s `username.font-color` is only for chatters who have not set one),',
    'and their avatar\'s letter (shown without a picture) on it too, as it is drawn on the colour the',
    'name shows (the letter dark where white would hardly show, on a light colour), unless the avatar',
    'has a background of its own (`avatar.background-color` or `-gradient`, the overlay\'s or the skin\'s).',
    'A name colour equal to the template\'s default (`#ffffff` in both templates) is not stored, so it',
    'cannot be a skin\'s: such a skin shows its chatters\' Twitch colours.',
    'The container keys (`chat.*`, `bubble.message-direction`, `bubble.gap`) always come from the',
    'overlay. None of this changes what is stored or what the API answers: it is how a skin is drawn.',
    'A skin cannot turn a setting back to its default over the overlay (that value is not stored),',
    'except through this rule.',
    '',
    'The settings that hide others:',
    '',
    '| When the skin sets one of | Of | and the overlay\'s | Because | Drawn at the skin\'s own value |',
    '|---|---|---|---|---|',
    ...[...rows.values()].map(({ properties, mask, elements }) =>
      `| ${properties.map(code).join(', ')} | ${elements.join(', ')} | ${code(mask.property)} ${condition(mask)} | ${escapeCell(mask.why)} | ${code(mask.property)} |`),
    '',
  ];
}

function directionList(): string {
  const seen = new Set<number>();
  const parts: string[] = [];
  for (const [direction, angle] of Object.entries(LINEAR_DIRECTION_ANGLES)) {
    if (seen.has(angle)) continue;
    seen.add(angle);
    parts.push(`\`to ${direction}\` is \`${angle}deg\``);
  }
  return parts.join(', ');
}

function elementsInOrder(settings: readonly SettingSpec[]): string[] {
  return [...new Set(settings.map((s) => s.element))];
}

function templateElements(settings: readonly SettingSpec[], template: Template): string[] {
  return elementsInOrder(settings).filter((e) => template.keys.some((k) => k.startsWith(`${e}.`)));
}

function templateDefaultsSection(settings: readonly SettingSpec[], template: Template): string[] {
  const own = settings.filter((s) => template.keySet.has(s.key) && template.defaults[s.key] !== s.default);
  if (own.length === 0) return [`The \`${template.slug}\` template keeps every catalog default.`, ''];
  return [
    `The \`${template.slug}\` template sets its own defaults for: ${own.map((s) => `${code(s.key)} = ${valueCode(template.defaults[s.key]!)}`).join(', ')}.`,
    '',
  ];
}

function defaultCell(spec: SettingSpec, users: readonly Template[]): string {
  const own = users.filter((t) => t.defaults[spec.key] !== spec.default);
  const base = valueCode(spec.default);
  if (own.length === 0) return base;
  return `${base} (${own.map((t) => `${t.slug}: ${valueCode(t.defaults[spec.key]!)}`).join('; ')})`;
}

function rangeCell(spec: SettingSpec): string {
  switch (spec.type) {
    case 'integer': return `${spec.min}..${spec.max}`;
    case 'select': return spec.options!.join(', ');
    case 'toggle': return 'true, false';
    case 'color': return 'colour rule';
    case 'gradient': return 'gradient rule';
    case 'string': return 'font catalog';
  }
}

function valueCode(value: SettingValue): string {
  return value === '' ? '`""`' : code(String(value));
}

function resultCell(value: string | undefined): string {
  return value === undefined ? 'refused' : code(value);
}

function code(text: string): string {
  return text === '' ? '`""`' : `\`${escapeCell(text)}\``;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
