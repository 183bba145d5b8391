// The gradient rule of the settings (DESIGN.md "Setting values"): `""` or one CSS linear or
// radial gradient (repeating variants included), stored in one normal form so equal gradients
// compare equal as strings. gradient-parser reads the text; the normal form is built here.
// The grammar and the normal form are documented in docs/settings.md (see settings-docs.ts).
import { parse } from 'gradient-parser';
import { colorFunction, namedColor, normalizeColor } from './color.ts';

export type GradientResult = { ok: true; value: string } | { ok: false; error: string };

/**
 * The longest gradient, as sent and as stored: longer input is refused before parsing, and so is
 * input whose normal form (which spells out every colour and stop position, up to four times
 * the length of the shortest input) would be longer, so every stored value can be sent back.
 * 8000 takes the normal form of any gradient of 2000 characters, the earlier limit on input.
 */
export const MAX_GRADIENT_LENGTH = 8000;
/** Bound on stop positions and radial lengths, so every number prints without an exponent. */
export const MAX_GRADIENT_NUMBER = 10_000;

export const DEFAULT_LINEAR_ANGLE = 180;
export const DEFAULT_RADIAL_SHAPE = 'ellipse';
export const DEFAULT_RADIAL_SIZE = 'farthest-corner';
export const DEFAULT_RADIAL_POSITION = '50% 50%';

/** `to <side or corner>` as the angle it stands for (corners as the square box's diagonal). */
export const LINEAR_DIRECTION_ANGLES: Readonly<Record<string, number>> = {
  top: 0, right: 90, bottom: 180, left: 270,
  'top right': 45, 'right top': 45,
  'bottom right': 135, 'right bottom': 135,
  'bottom left': 225, 'left bottom': 225,
  'top left': 315, 'left top': 315,
};

// The AST as gradient-parser 1.2 builds it. Its published types lack some fields it sets
// (angle units, second stop positions, `at` without shape), so the fields read here are named.
interface ValueNode { type: string; value: string }
interface PositionNode { type: 'position'; value: { x?: ValueNode; y?: ValueNode } }
interface ColorStopNode { type: string; value: string | string[]; length?: ValueNode; length2?: ValueNode }
interface RadialOrientationNode {
  type: string;
  value?: string;
  style?: ValueNode | PositionNode;
  at?: PositionNode;
  hasAtKeyword?: boolean;
}
interface GradientAstNode {
  type: string;
  orientation?: (ValueNode & { unit?: string }) | RadialOrientationNode[] | undefined;
  colorStops: ColorStopNode[];
}

/** Thrown inside the normaliser and turned into the `error` of the result. */
class GradientRefusal extends Error {}

export function normalizeGradient(raw: string): GradientResult {
  if (raw.length > MAX_GRADIENT_LENGTH) {
    return { ok: false, error: `it is longer than ${MAX_GRADIENT_LENGTH} characters` };
  }
  // Nothing in the accepted grammar is case-sensitive, and single spaces keep the parser's
  // `to right` pattern from failing on doubled blanks.
  const text = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === '') return { ok: true, value: '' };
  try {
    const value = normalizeGradientText(text);
    if (value.length > MAX_GRADIENT_LENGTH) {
      return { ok: false, error: `its normal form (every colour and stop position written out) is longer than ${MAX_GRADIENT_LENGTH} characters` };
    }
    return { ok: true, value };
  } catch (error) {
    if (error instanceof GradientRefusal) return { ok: false, error: error.message };
    throw error;
  }
}

function normalizeGradientText(text: string): string {
  if (/^-(webkit|moz|ms|o)-/.test(text)) {
    throw new GradientRefusal('vendor-prefixed gradients (-webkit- and the like) are not accepted');
  }
  if (/^(repeating-)?conic-gradient\b/.test(text)) {
    throw new GradientRefusal('conic gradients are not supported, only linear and radial ones');
  }
  if (!/^(repeating-)?(linear|radial)-gradient\(/.test(text)) {
    throw new GradientRefusal('it must start with linear-gradient( or radial-gradient(');
  }
  // gradient-parser reads the legacy `linear-gradient(right, ...)`, which means "from the
  // right", into the same node as `to right`; refuse it rather than guess.
  if (/^(repeating-)?linear-gradient\( ?(left|right|top|bottom|center)\b/.test(text)) {
    throw new GradientRefusal('write the direction with "to", for example "to right"');
  }
  const ast = parseGradientList(withHexColorFunctions(text));
  if (ast.length !== 1) {
    throw new GradientRefusal(ast.length === 0 ? 'it is not a gradient' : 'write one gradient, not a list of gradients');
  }
  const node = ast[0]!;
  const stops = normalizeColorStops(node.colorStops);
  switch (node.type) {
    case 'linear-gradient':
    case 'repeating-linear-gradient':
      return `${node.type}(${formatNumber(linearAngle(node.orientation))}deg, ${stops})`;
    case 'radial-gradient':
    case 'repeating-radial-gradient':
      return `${node.type}(${radialShape(node.orientation)}, ${stops})`;
    default:
      throw new GradientRefusal('only linear and radial gradients are accepted');
  }
}

const COLOR_FUNCTION = /\b(?:rgba?|hsla?)\([^()]*\)/g;

/**
 * The text with every rgb()/hsl() colour written as hex: gradient-parser reads only some of
 * their CSS forms (no percentages, negative or `deg` hues, percentage alphas), color-string reads
 * them all.
 */
function withHexColorFunctions(text: string): string {
  return text.replace(COLOR_FUNCTION, (call) => {
    const color = colorFunction(call);
    if (color === undefined) throw new GradientRefusal(`"${excerpt(call)}" is not a colour`);
    return color;
  });
}

function parseGradientList(text: string): GradientAstNode[] {
  try {
    return parse(text) as unknown as GradientAstNode[];
  } catch (error) {
    throw new GradientRefusal(describeParseError(error));
  }
}

const PARSER_PROBLEMS: ReadonlyMap<string, string> = new Map([
  ['invalid input not eof', 'unexpected text'],
  ['missing comma before color stops', 'expected a comma before the colour stops'],
  ['expected color definition', 'expected a colour'],
  ['one extra comma', 'one comma too many'],
  ['missing (', 'expected "("'],
  ['missing )', 'expected ")"'],
]);

/** gradient-parser's messages read "<rest of input>: <problem>"; keep the problem and a hint of where. */
function describeParseError(error: unknown): string {
  if (!(error instanceof Error)) return 'it could not be read';
  const rest = (error as Error & { source?: unknown }).source;
  if (typeof rest !== 'string' || !error.message.startsWith(`${rest}: `)) {
    // The parser also fails with TypeErrors on some malformed colour functions.
    return 'it could not be read';
  }
  const said = error.message.slice(rest.length + 2).toLowerCase();
  const problem = PARSER_PROBLEMS.get(said) ?? said;
  const near = rest.trim();
  if (near === '') return `it could not be read (${problem} at the end)`;
  const excerpt = near.length > 24 ? `${near.slice(0, 24)}…` : near;
  return `it could not be read (${problem} near "${excerpt}")`;
}

function linearAngle(orientation: GradientAstNode['orientation']): number {
  if (orientation === undefined) return DEFAULT_LINEAR_ANGLE;
  if (Array.isArray(orientation)) throw new GradientRefusal('the direction of the linear gradient is not valid');
  if (orientation.type === 'directional') {
    const angle = LINEAR_DIRECTION_ANGLES[orientation.value];
    if (angle === undefined) throw new GradientRefusal(`"to ${orientation.value}" is not a direction`);
    return angle;
  }
  const value = Number.parseFloat(orientation.value);
  if (!Number.isFinite(value)) throw new GradientRefusal('the angle is not a number');
  const degrees = toDegrees(value, orientation.unit ?? 'deg');
  // Angles are kept in [0, 360) so that 360deg, 0deg, 0turn and `to top` are one value.
  const turned = ((degrees % 360) + 360) % 360;
  return roundNumber(turned) === 360 ? 0 : turned;
}

function toDegrees(value: number, unit: string): number {
  switch (unit) {
    case 'deg': return value;
    case 'rad': return (value * 180) / Math.PI;
    case 'grad': return value * 0.9;
    case 'turn': return value * 360;
    default: throw new GradientRefusal(`the angle unit "${unit}" is not known`);
  }
}

function radialShape(orientation: GradientAstNode['orientation']): string {
  if (orientation === undefined) {
    return `${DEFAULT_RADIAL_SHAPE} ${DEFAULT_RADIAL_SIZE} at ${DEFAULT_RADIAL_POSITION}`;
  }
  if (!Array.isArray(orientation)) throw new GradientRefusal('the shape of the radial gradient is not valid');
  if (orientation.length !== 1) {
    throw new GradientRefusal('write the radial shape as one part, for example "circle at 50% 50%"');
  }
  const node = orientation[0]!;
  const position = node.at ? radialPosition(node.at) : DEFAULT_RADIAL_POSITION;
  switch (node.type) {
    case 'shape': {
      const shape = node.value === 'circle' ? 'circle' : 'ellipse';
      return `${shape} ${radialSize(shape, node.style)} at ${position}`;
    }
    case 'extent-keyword':
      return `${DEFAULT_RADIAL_SHAPE} ${extentKeyword(node.value ?? '')} at ${position}`;
    case 'default-radial':
      if (!node.hasAtKeyword) {
        throw new GradientRefusal('write the centre of a radial gradient with "at", for example "at 50% 50%"');
      }
      return `${DEFAULT_RADIAL_SHAPE} ${DEFAULT_RADIAL_SIZE} at ${position}`;
    default:
      throw new GradientRefusal('the shape of the radial gradient is not valid');
  }
}

function extentKeyword(keyword: string): string {
  // `contain` and `cover` are the old names of closest-side and farthest-corner.
  if (keyword === 'contain') return 'closest-side';
  if (keyword === 'cover') return 'farthest-corner';
  return keyword;
}

function radialSize(shape: 'circle' | 'ellipse', style: RadialOrientationNode['style']): string {
  if (style === undefined) return DEFAULT_RADIAL_SIZE;
  if (style.type === 'extent-keyword') return extentKeyword((style as ValueNode).value);
  if (shape === 'circle') {
    if (style.type !== 'px') throw new GradientRefusal('the size of a circle must be one length in px');
    return sizeLength(style as ValueNode);
  }
  if (style.type === 'position') {
    const { x, y } = (style as PositionNode).value;
    if (x && y) return `${sizeLength(x)} ${sizeLength(y)}`;
  }
  throw new GradientRefusal('the size of an ellipse must be two lengths in px or %');
}

function sizeLength(node: ValueNode): string {
  if (node.type !== 'px' && node.type !== '%') throw new GradientRefusal('radial sizes must be in px or %');
  const value = boundedNumber(node.value, 0);
  return `${formatNumber(value)}${node.type}`;
}

const HORIZONTAL_KEYWORDS: Readonly<Record<string, string>> = { left: '0%', center: '50%', right: '100%' };
const VERTICAL_KEYWORDS: Readonly<Record<string, string>> = { top: '0%', center: '50%', bottom: '100%' };

/** `at <position>` as two explicit values, x then y; keywords become percentages. */
function radialPosition(at: PositionNode): string {
  let { x, y } = at.value;
  if (x === undefined) throw new GradientRefusal('the centre of the radial gradient is missing after "at"');
  const isVertical = (n: ValueNode | undefined) => n?.type === 'position-keyword' && (n.value === 'top' || n.value === 'bottom');
  const isHorizontal = (n: ValueNode | undefined) => n?.type === 'position-keyword' && (n.value === 'left' || n.value === 'right');
  if (y === undefined) {
    // One value: a vertical keyword sets y; anything else sets x. The other axis is centred.
    if (isVertical(x)) [x, y] = [undefined, x];
  } else if (isVertical(x) || isHorizontal(y)) {
    // `top left` means the same as `left top`; `top 30%` is not CSS.
    if (x.type !== 'position-keyword' || y.type !== 'position-keyword') {
      throw new GradientRefusal('write the horizontal position first, for example "at 30% 0%"');
    }
    [x, y] = [y, x];
  }
  return `${positionValue(x, HORIZONTAL_KEYWORDS)} ${positionValue(y, VERTICAL_KEYWORDS)}`;
}

function positionValue(node: ValueNode | undefined, keywords: Readonly<Record<string, string>>): string {
  if (node === undefined) return '50%';
  if (node.type === 'position-keyword') {
    const mapped = keywords[node.value];
    if (mapped === undefined) throw new GradientRefusal(`"${node.value}" cannot be used on that axis of the position`);
    return mapped;
  }
  if (node.type !== 'px' && node.type !== '%') {
    throw new GradientRefusal('the centre of a radial gradient must be given in px, % or keywords');
  }
  return `${formatNumber(boundedNumber(node.value, -MAX_GRADIENT_NUMBER))}${node.type}`;
}

/** Colours in the colour rule's normal form, each with an explicit percentage. */
function normalizeColorStops(nodes: ColorStopNode[]): string {
  const colors: string[] = [];
  const positions: Array<number | undefined> = [];
  for (const node of nodes) {
    const color = stopColor(node);
    colors.push(color);
    positions.push(node.length ? stopPosition(node.length) : undefined);
    // `red 10% 20%` is two stops of the same colour.
    if (node.length2) {
      colors.push(color);
      positions.push(stopPosition(node.length2));
    }
  }
  if (colors.length < 2) throw new GradientRefusal('a gradient needs at least two colour stops');
  return fixUpStopPositions(positions)
    .map((position, i) => `${colors[i]} ${formatNumber(position)}%`)
    .join(', ');
}

/**
 * CSS "color stop fixup": a missing first/last position is 0%/100%, a position below an
 * earlier one is raised to it, and runs of missing positions are spread evenly between
 * their neighbours.
 */
export function fixUpStopPositions(positions: ReadonlyArray<number | undefined>): number[] {
  const out = [...positions];
  if (out[0] === undefined) out[0] = 0;
  if (out[out.length - 1] === undefined) out[out.length - 1] = 100;
  let highest = -Infinity;
  for (let i = 0; i < out.length; i++) {
    const p = out[i];
    if (p === undefined) continue;
    highest = Math.max(highest, p);
    out[i] = highest;
  }
  for (let i = 0; i < out.length; i++) {
    if (out[i] !== undefined) continue;
    let end = i;
    while (out[end] === undefined) end++;
    const from = out[i - 1]!;
    const to = out[end]!;
    const step = (to - from) / (end - i + 1);
    for (let k = i; k < end; k++) out[k] = from + step * (k - i + 1);
    i = end;
  }
  return out as number[];
}

function stopPosition(node: ValueNode): number {
  if (node.type !== '%') {
    throw new GradientRefusal('colour stop positions must be percentages, for example "red 50%"');
  }
  return boundedNumber(node.value, -MAX_GRADIENT_NUMBER);
}

function stopColor(node: ColorStopNode): string {
  const value = node.value;
  switch (node.type) {
    case 'hex': {
      const color = normalizeColor(`#${String(value)}`);
      if (color === undefined) throw new GradientRefusal(`"${excerpt(`#${String(value)}`)}" is not a colour`);
      return color;
    }
    case 'literal': {
      const name = String(value);
      const color = namedColor(name);
      if (color === undefined) throw new GradientRefusal(`"${excerpt(name)}" is not a colour name`);
      return color;
    }
    case 'var':
      throw new GradientRefusal('CSS variables are not accepted in gradients');
    default:
      throw new GradientRefusal(`colours of type "${node.type}" are not accepted`);
  }
}

/** Input echoed in a refusal, cut short so a long word cannot bloat the message (a chat line). */
function excerpt(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function boundedNumber(text: string, min: number): number {
  const value = Number.parseFloat(text);
  if (!Number.isFinite(value) || value < min || value > MAX_GRADIENT_NUMBER) {
    const shown = text.length > 12 ? `${text.slice(0, 12)}…` : text;
    throw new GradientRefusal(`${shown} is out of range (${min} to ${MAX_GRADIENT_NUMBER})`);
  }
  return value;
}

/** At most two decimals, no trailing zeros, never `-0`. */
function roundNumber(value: number): number {
  const rounded = Math.round(value * 100) / 100;
  return Object.is(rounded, -0) ? 0 : rounded;
}

function formatNumber(value: number): string {
  return String(roundNumber(value));
}
