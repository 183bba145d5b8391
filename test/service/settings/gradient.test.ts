import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixUpStopPositions, MAX_GRADIENT_LENGTH, normalizeGradient } from '../../../src/service/settings/gradient.ts';

function normalized(input: string): string {
  const result = normalizeGradient(input);
  if (!result.ok) throw new Error(`refused ${JSON.stringify(input)}: ${result.error}`);
  return result.value;
}

function refusal(input: string): string {
  const result = normalizeGradient(input);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(input)} as ${result.value}`);
  return result.error;
}

const RED_BLUE = '#ff0000 0%, #0000ff 100%';

describe('normalizeGradient: empty', () => {
  it('keeps "" as no gradient', () => {
    expect(normalized('')).toBe('');
  });

  it('reads blanks alone as no gradient', () => {
    expect(normalized('  \t ')).toBe('');
  });
});

describe('normalizeGradient: linear directions', () => {
  it.each([
    ['linear-gradient(red, blue)', 180],
    ['linear-gradient(to top, red, blue)', 0],
    ['linear-gradient(to right, red, blue)', 90],
    ['linear-gradient(to bottom, red, blue)', 180],
    ['linear-gradient(to left, red, blue)', 270],
    ['linear-gradient(to top right, red, blue)', 45],
    ['linear-gradient(to right top, red, blue)', 45],
    ['linear-gradient(to bottom right, red, blue)', 135],
    ['linear-gradient(to right bottom, red, blue)', 135],
    ['linear-gradient(to bottom left, red, blue)', 225],
    ['linear-gradient(to left bottom, red, blue)', 225],
    ['linear-gradient(to top left, red, blue)', 315],
    ['linear-gradient(to left top, red, blue)', 315],
  ])('%s points at %ddeg', (input, angle) => {
    expect(normalized(input)).toBe(`linear-gradient(${angle}deg, ${RED_BLUE})`);
  });

  it.each([
    ['45deg', '45deg'],
    ['0deg', '0deg'],
    ['360deg', '0deg'],
    ['720deg', '0deg'],
    ['-90deg', '270deg'],
    ['450deg', '90deg'],
    ['12.345deg', '12.35deg'],
    ['.5deg', '0.5deg'],
    ['0.25turn', '90deg'],
    ['1turn', '0deg'],
    ['-0.5turn', '180deg'],
    ['100grad', '90deg'],
    ['200grad', '180deg'],
    ['3.14159265rad', '180deg'],
    ['1rad', '57.3deg'],
    ['359.999deg', '0deg'],
  ])('converts the angle %s to %s', (angle, expected) => {
    expect(normalized(`linear-gradient(${angle}, red, blue)`)).toBe(`linear-gradient(${expected}, ${RED_BLUE})`);
  });
});

describe('normalizeGradient: case and blanks', () => {
  it('reads upper case and stores lower case', () => {
    expect(normalized('LINEAR-GRADIENT(TO RIGHT, RED, #0000FF)')).toBe(`linear-gradient(90deg, ${RED_BLUE})`);
    expect(normalized('Radial-Gradient(CIRCLE AT TOP, Red, Blue)'))
      .toBe(`radial-gradient(circle farthest-corner at 50% 0%, ${RED_BLUE})`);
  });

  it('ignores extra blanks, tabs and newlines', () => {
    expect(normalized('  linear-gradient(  to   right ,\n red\t,  blue  10%  )  ')).toBe('linear-gradient(90deg, #ff0000 0%, #0000ff 10%)');
  });
});

describe('normalizeGradient: colours', () => {
  it.each([
    ['#F00', '#ff0000'],
    ['#f008', '#ff000088'],
    ['#FF000080', '#ff000080'],
    ['#ff000000', 'transparent'],
    ['transparent', 'transparent'],
    ['TRANSPARENT', 'transparent'],
    ['rebeccapurple', '#663399'],
    ['LightGoldenRodYellow', '#fafad2'],
    ['rgb(255, 128, 0)', '#ff8000'],
    ['rgb(255 128 0)', '#ff8000'],
    ['rgba(255, 128, 0, 0.5)', '#ff800080'],
    ['rgba(255, 128, 0, 1)', '#ff8000'],
    ['rgba(255, 128, 0, 0)', 'transparent'],
    ['rgb(255 128 0 / 0.25)', '#ff800040'],
    ['rgb(300, 0, 0)', '#ff0000'],
    ['hsl(120, 100%, 50%)', '#00ff00'],
    ['hsl(240 100% 50%)', '#0000ff'],
    ['hsla(0, 100%, 50%, 0.5)', '#ff000080'],
    ['hsl(0 0% 100% / 0)', 'transparent'],
    // CSS forms gradient-parser alone could not read (color-string reads them).
    ['rgb(100%, 0%, 0%)', '#ff0000'],
    ['rgb(10%,20%,30%)', '#1a334d'],
    ['rgba(255, 0, 0, 50%)', '#ff000080'],
    ['rgb(300, -5, 10)', '#ff000a'],
    ['hsl(-120, 100%, 50%)', '#0000ff'],
    ['hsl(120deg, 100%, 50%)', '#00ff00'],
    ['RGB(0, 0, 255)', '#0000ff'],
  ])('stores %s as %s', (color, expected) => {
    expect(normalized(`linear-gradient(${color}, ${color})`)).toBe(`linear-gradient(180deg, ${expected} 0%, ${expected} 100%)`);
  });

  it.each([
    ['linear-gradient(red, blurple)', '"blurple" is not a colour name'],
    ['linear-gradient(red, currentcolor)', '"currentcolor" is not a colour name'],
    ['linear-gradient(red, var(--accent))', 'CSS variables are not accepted in gradients'],
    ['linear-gradient(red, #12345)', 'expected a colour'],
    ['linear-gradient(red, rgb(a, b, c))', '"rgb(a, b, c)" is not a colour'],
    ['linear-gradient(red, rgb(255, 0))', '"rgb(255, 0)" is not a colour'],
    ['linear-gradient(red, hsl(10%, 50%, 50%))', '"hsl(10%, 50%, 50%)" is not a colour'],
  ])('refuses the colours of %s', (input, reason) => {
    expect(refusal(input)).toContain(reason);
  });
});

describe('normalizeGradient: stop positions', () => {
  it.each([
    ['red, blue', '#ff0000 0%, #0000ff 100%'],
    ['red, lime, blue', '#ff0000 0%, #00ff00 50%, #0000ff 100%'],
    ['red, lime, blue, black', '#ff0000 0%, #00ff00 33.33%, #0000ff 66.67%, #000000 100%'],
    ['red 20%, blue', '#ff0000 20%, #0000ff 100%'],
    ['red, blue 40%', '#ff0000 0%, #0000ff 40%'],
    ['red 10%, lime, blue 50%', '#ff0000 10%, #00ff00 30%, #0000ff 50%'],
    ['red 10%, lime, white, blue 70%', '#ff0000 10%, #00ff00 30%, #ffffff 50%, #0000ff 70%'],
    ['red 50%, blue 20%', '#ff0000 50%, #0000ff 50%'],
    ['red 50%, blue 20%, lime', '#ff0000 50%, #0000ff 50%, #00ff00 100%'],
    ['red 80%, lime, blue', '#ff0000 80%, #00ff00 90%, #0000ff 100%'],
    ['red 150%, blue', '#ff0000 150%, #0000ff 150%'],
    ['red -20%, blue 120%', '#ff0000 -20%, #0000ff 120%'],
    ['red 10% 30%, blue', '#ff0000 10%, #ff0000 30%, #0000ff 100%'],
    ['red 33.333%, blue', '#ff0000 33.33%, #0000ff 100%'],
  ])('fixes up %s', (stops, expected) => {
    expect(normalized(`linear-gradient(${stops})`)).toBe(`linear-gradient(180deg, ${expected})`);
  });

  it.each([
    ['linear-gradient(red 10px, blue)', 'colour stop positions must be percentages'],
    ['linear-gradient(red 1em, blue)', 'colour stop positions must be percentages'],
    ['linear-gradient(red calc(10%), blue)', 'colour stop positions must be percentages'],
    ['linear-gradient(red, 30%, blue)', 'expected a colour'],
    ['linear-gradient(red)', 'a gradient needs at least two colour stops'],
    ['linear-gradient(to right)', 'expected a comma before the colour stops'],
    ['linear-gradient(red 10001%, blue)', 'out of range'],
    ['linear-gradient(red 999999999999999999999999999%, blue)', 'out of range'],
  ])('refuses %s', (input, reason) => {
    expect(refusal(input)).toContain(reason);
  });

  it('spreads stops evenly between their neighbours (fixUpStopPositions)', () => {
    expect(fixUpStopPositions([undefined, undefined])).toEqual([0, 100]);
    expect(fixUpStopPositions([undefined, 40, undefined, undefined, undefined])).toEqual([0, 40, 60, 80, 100]);
    expect(fixUpStopPositions([30, 10, undefined, 20])).toEqual([30, 30, 30, 30]);
  });
});

describe('normalizeGradient: radial', () => {
  it.each([
    ['radial-gradient(red, blue)', 'ellipse farthest-corner at 50% 50%'],
    ['radial-gradient(circle, red, blue)', 'circle farthest-corner at 50% 50%'],
    ['radial-gradient(ellipse, red, blue)', 'ellipse farthest-corner at 50% 50%'],
    ['radial-gradient(circle closest-side, red, blue)', 'circle closest-side at 50% 50%'],
    ['radial-gradient(circle 40px, red, blue)', 'circle 40px at 50% 50%'],
    ['radial-gradient(ellipse 40px 20%, red, blue)', 'ellipse 40px 20% at 50% 50%'],
    ['radial-gradient(closest-corner, red, blue)', 'ellipse closest-corner at 50% 50%'],
    ['radial-gradient(farthest-side at 10% 20%, red, blue)', 'ellipse farthest-side at 10% 20%'],
    ['radial-gradient(contain, red, blue)', 'ellipse closest-side at 50% 50%'],
    ['radial-gradient(cover, red, blue)', 'ellipse farthest-corner at 50% 50%'],
    ['radial-gradient(at 30% 70%, red, blue)', 'ellipse farthest-corner at 30% 70%'],
    ['radial-gradient(at center, red, blue)', 'ellipse farthest-corner at 50% 50%'],
    ['radial-gradient(at left, red, blue)', 'ellipse farthest-corner at 0% 50%'],
    ['radial-gradient(at right, red, blue)', 'ellipse farthest-corner at 100% 50%'],
    ['radial-gradient(at top, red, blue)', 'ellipse farthest-corner at 50% 0%'],
    ['radial-gradient(at bottom, red, blue)', 'ellipse farthest-corner at 50% 100%'],
    ['radial-gradient(at 25%, red, blue)', 'ellipse farthest-corner at 25% 50%'],
    ['radial-gradient(circle at left top, red, blue)', 'circle farthest-corner at 0% 0%'],
    ['radial-gradient(circle at top left, red, blue)', 'circle farthest-corner at 0% 0%'],
    ['radial-gradient(circle at bottom right, red, blue)', 'circle farthest-corner at 100% 100%'],
    ['radial-gradient(circle at center top, red, blue)', 'circle farthest-corner at 50% 0%'],
    ['radial-gradient(circle at top center, red, blue)', 'circle farthest-corner at 50% 0%'],
    ['radial-gradient(circle at 10px bottom, red, blue)', 'circle farthest-corner at 10px 100%'],
    ['radial-gradient(circle at right 30%, red, blue)', 'circle farthest-corner at 100% 30%'],
    ['radial-gradient(circle at -20px 120%, red, blue)', 'circle farthest-corner at -20px 120%'],
  ])('%s has shape %s', (input, shape) => {
    expect(normalized(input)).toBe(`radial-gradient(${shape}, ${RED_BLUE})`);
  });

  it.each([
    ['radial-gradient(center, red, blue)', 'write the centre of a radial gradient with "at"'],
    ['radial-gradient(circle 40%, red, blue)', 'it could not be read'],
    ['radial-gradient(circle 2em, red, blue)', 'the size of a circle must be one length in px'],
    ['radial-gradient(ellipse 40px, red, blue)', 'the size of an ellipse must be two lengths'],
    ['radial-gradient(ellipse 4em 2em, red, blue)', 'radial sizes must be in px or %'],
    ['radial-gradient(circle at top 30%, red, blue)', 'write the horizontal position first'],
    ['radial-gradient(circle at left right, red, blue)', 'cannot be used on that axis'],
    ['radial-gradient(circle at 2em 50%, red, blue)', 'must be given in px, % or keywords'],
    ['radial-gradient(circle at, red, blue)', 'it could not be read'],
    ['radial-gradient(circle 20000px, red, blue)', 'out of range'],
  ])('refuses %s', (input, reason) => {
    expect(refusal(input)).toContain(reason);
  });
});

describe('normalizeGradient: repeating gradients', () => {
  it('accepts and normalises repeating-linear-gradient', () => {
    expect(normalized('Repeating-Linear-Gradient(45deg, black, white 10%)'))
      .toBe('repeating-linear-gradient(45deg, #000000 0%, #ffffff 10%)');
  });

  it('accepts and normalises repeating-radial-gradient', () => {
    expect(normalized('repeating-radial-gradient(circle, black, white 5%)'))
      .toBe('repeating-radial-gradient(circle farthest-corner at 50% 50%, #000000 0%, #ffffff 5%)');
  });
});

describe('normalizeGradient: refusals', () => {
  it.each([
    ['red', 'it must start with linear-gradient( or radial-gradient('],
    ['#ff0000', 'it must start with linear-gradient( or radial-gradient('],
    ['url(a.png)', 'it must start with linear-gradient( or radial-gradient('],
    ['linear-gradient', 'it must start with linear-gradient('],
    ['conic-gradient(red, blue)', 'conic gradients are not supported'],
    ['repeating-conic-gradient(red, blue)', 'conic gradients are not supported'],
    ['-webkit-linear-gradient(left, red, blue)', 'vendor-prefixed gradients'],
    ['-moz-radial-gradient(red, blue)', 'vendor-prefixed gradients'],
    ['linear-gradient(right, red, blue)', 'write the direction with "to"'],
    ['linear-gradient(top left, red, blue)', 'write the direction with "to"'],
    ['linear-gradient(red, blue), linear-gradient(red, blue)', 'write one gradient, not a list'],
    ['linear-gradient(red, blue', 'expected ")" at the end'],
    ['linear-gradient(red, blue))', 'unexpected text near ")"'],
    ['linear-gradient(red,, blue)', 'expected a colour'],
    ['linear-gradient(red, blue,)', 'expected a colour near ")"'],
    ['linear-gradient(red, blue),', 'one comma too many'],
    ['linear-gradient(45, red, blue)', 'it could not be read'],
    ['linear-gradient(45deg red, blue)', 'expected a comma before the colour stops'],
    ['linear-gradient(to middle, red, blue)', 'it could not be read'],
    ['linear-gradient(calc(10deg), red, blue)', 'it could not be read'],
    ['linear-gradient(red, blue) junk', 'unexpected text near "junk"'],
    ['linear-gradient(😀, blue)', 'it could not be read'],
  ])('refuses %s', (input, reason) => {
    expect(refusal(input)).toContain(reason);
  });

  it('cuts the colour it could not read short in the refusal, as every other echo of the input', () => {
    // A refusal is said back in chat as one line; a 7000-letter "colour" must not be echoed whole.
    fc.assert(fc.property(
      fc.constantFrom('a', 'b', 'f', '0'), fc.integer({ min: 60, max: 7_000 }), fc.boolean(),
      (char, length, hex) => {
        const colour = `${hex ? '#' : ''}${(hex ? char : 'x').repeat(length)}`;
        const error = refusal(`linear-gradient(red, ${colour})`);
        expect(error).toMatch(hex ? /colour/ : /"x+…" is not a colour name/);
        expect(error.length).toBeLessThanOrEqual(80);
      },
    ), { numRuns: 40 });
  });

  it('refuses input longer than the limit without parsing it', () => {
    const huge = `linear-gradient(${'red, '.repeat(200_000)}blue)`;
    expect(refusal(huge)).toBe(`it is longer than ${MAX_GRADIENT_LENGTH} characters`);
  });

  it('accepts a long gradient just under the limit', () => {
    const stops = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? 'red' : 'blue')).join(', ');
    const input = `linear-gradient(${stops})`;
    expect(input.length).toBeLessThanOrEqual(MAX_GRADIENT_LENGTH);
    const value = normalized(input);
    expect(value.split(', ')).toHaveLength(151);
    expect(value.endsWith('#0000ff 100%)')).toBe(true);
  });

  it('answers a refusal, never a crash, for arbitrary text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => {
      const result = normalizeGradient(text);
      expect(typeof result.ok).toBe('boolean');
    }));
    fc.assert(fc.property(fc.string({ maxLength: 120 }), (inner) => {
      const result = normalizeGradient(`linear-gradient(${inner})`);
      if (!result.ok) expect(result.error.length).toBeGreaterThan(0);
    }));
  });
});

// Valid gradients built from parts, to check that normalising is stable.
const colorArb = fc.oneof(
  fc.constantFrom('red', 'Blue', 'transparent', 'REBECCAPURPLE', 'white', 'black'),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 3, maxLength: 8 })
    .filter((s) => [3, 4, 6, 8].includes(s.length)).map((s) => `#${s}`),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([r, g, b]) => `rgb(${r}, ${g}, ${b})`),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(100)).map(([r, g, b, a]) => `rgba(${r}, ${g}, ${b}, ${a / 100})`),
  fc.tuple(fc.nat(359), fc.nat(100), fc.nat(100)).map(([h, s, l]) => `hsl(${h}, ${s}%, ${l}%)`),
);
const percentArb = fc.integer({ min: -5000, max: 15000 }).map((n) => `${n / 100}%`);
const stopArb = fc.tuple(colorArb, fc.option(percentArb, { nil: undefined }))
  .map(([color, position]) => (position === undefined ? color : `${color} ${position}`));
const stopsArb = fc.array(stopArb, { minLength: 2, maxLength: 8 }).map((stops) => stops.join(', '));
const linearArb = fc.tuple(
  fc.constantFrom('linear-gradient', 'repeating-linear-gradient', 'LINEAR-GRADIENT'),
  fc.oneof(
    fc.constant(''),
    fc.constantFrom('to top', 'to right', 'to bottom left', 'to left top').map((d) => `${d}, `),
    fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.constantFrom('deg', 'rad', 'grad', 'turn'))
      .map(([n, unit]) => `${n / 100}${unit}, `),
  ),
  stopsArb,
).map(([fn, direction, stops]) => `${fn}(${direction}${stops})`);
const lengthArb = fc.nat(5000).map((n) => `${n}px`);
const positionArb = fc.oneof(
  fc.constantFrom('center', 'left', 'top', 'right bottom', 'bottom left', 'center top'),
  fc.tuple(fc.integer({ min: -100, max: 200 }), fc.integer({ min: -100, max: 200 })).map(([x, y]) => `${x}% ${y}px`),
);
const radialArb = fc.tuple(
  fc.constantFrom('radial-gradient', 'repeating-radial-gradient'),
  fc.oneof(
    fc.constant(''),
    fc.constantFrom('circle', 'ellipse', 'closest-side', 'circle farthest-side', 'ellipse closest-corner').map((s) => `${s}, `),
    lengthArb.map((l) => `circle ${l}, `),
    fc.tuple(lengthArb, fc.nat(300)).map(([l, p]) => `ellipse ${l} ${p}%, `),
    positionArb.map((p) => `at ${p}, `),
    fc.tuple(fc.constantFrom('circle', 'ellipse farthest-corner'), positionArb).map(([s, p]) => `${s} at ${p}, `),
  ),
  stopsArb,
).map(([fn, shape, stops]) => `${fn}(${shape}${stops})`);

describe('normalizeGradient: properties', () => {
  it('accepts every well-formed linear or radial gradient, and normalising its output changes nothing', () => {
    fc.assert(fc.property(fc.oneof(linearArb, radialArb), (input) => {
      const once = normalized(input);
      expect(normalized(once)).toBe(once);
      expect(once).toBe(once.toLowerCase());
      expect(once).toMatch(/^(repeating-)?(linear|radial)-gradient\(/);
    }), { numRuns: 500 });
  });

  it('gives every stop of the output an explicit percentage, in order', () => {
    fc.assert(fc.property(linearArb, (input) => {
      const stops = normalized(input).replace(/^[^(]*\(/, '').replace(/\)$/, '').split(', ').slice(1);
      const positions = stops.map((s) => {
        const match = / (-?[\d.]+)%$/.exec(s);
        expect(match).not.toBeNull();
        return Number(match![1]);
      });
      for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThanOrEqual(positions[i - 1]!);
    }), { numRuns: 300 });
  });
});
