// The spec's settings tables, written out here by hand from the spec (not read from the
// catalog), checked over a real socket: every key's default as GET /template shows it for a
// fresh overlay of the bubbles template (which uses every element), every integer range, every
// select's options, the toggles and the colour rule. A catalog that drifts from the spec (a
// default, a range or an option changed, a key added or lost) fails here even when
// docs/settings.md was regenerated from it.
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_GRADIENT_LENGTH } from '../../../src/service/settings/gradient.ts';
import { apiTestServerForSuite, errorFields } from './api-test-server.ts';

type Spec =
  | { type: 'integer'; default: number; min: number; max: number }
  | { type: 'color' | 'gradient' | 'string'; default: string }
  | { type: 'select'; default: string; options: string[] }
  | { type: 'toggle'; default: boolean };

const int = (dflt: number, min = 0, max = 10_000): Spec => ({ type: 'integer', default: dflt, min, max });
const color = (dflt: string): Spec => ({ type: 'color', default: dflt });
const select = (dflt: string, options: string[]): Spec => ({ type: 'select', default: dflt, options });
const toggle = (dflt: boolean): Spec => ({ type: 'toggle', default: dflt });

const ENTRANCES = [
  'none', 'fade-in', 'fade-in-up', 'fade-in-down', 'fade-in-left', 'fade-in-right', 'slide-in-up', 'slide-in-down',
  'slide-in-left', 'slide-in-right', 'bounce-in', 'bounce-in-up', 'bounce-in-down', 'zoom-in', 'zoom-in-up', 'flip-in-x',
  'flip-in-y', 'rotate-in', 'jack-in-the-box', 'roll-in', 'light-speed-in-right',
];

/** "Keys shared by bubble, avatar, username, message". */
function sharedKeys(element: string): Record<string, Spec> {
  return {
    [`${element}.background-color`]: color('transparent'),
    [`${element}.background-gradient`]: { type: 'gradient', default: '' },
    [`${element}.border-width`]: int(0),
    [`${element}.border-color`]: color('transparent'),
    [`${element}.border-style`]: select('solid', ['none', 'solid', 'dashed', 'dotted', 'double']),
    [`${element}.border-radius`]: int(0),
    [`${element}.border-radius-advanced`]: toggle(false),
    [`${element}.border-radius-top-left`]: int(0),
    [`${element}.border-radius-top-right`]: int(0),
    [`${element}.border-radius-bottom-right`]: int(0),
    [`${element}.border-radius-bottom-left`]: int(0),
    [`${element}.box-shadow-offset-x`]: int(0, -10_000),
    [`${element}.box-shadow-offset-y`]: int(0, -10_000),
    [`${element}.box-shadow-blur-radius`]: int(0),
    [`${element}.box-shadow-spread-radius`]: int(0, -10_000),
    [`${element}.box-shadow-color`]: color('#000000'),
    [`${element}.box-shadow-inset`]: toggle(false),
    [`${element}.animation-entrance`]: select(element === 'bubble' ? 'slide-in-up' : 'none', ENTRANCES),
    [`${element}.animation-duration`]: int(750),
    [`${element}.animation-delay`]: int(0),
    [`${element}.animation-easing`]: select('ease-out', ['ease-out', 'ease-in', 'ease-in-out', 'linear', 'ease']),
    [`${element}.padding`]: int(0),
  };
}

/** "Username and message typography". */
function typographyKeys(element: string): Record<string, Spec> {
  return {
    [`${element}.font-style`]: select('normal', ['normal', 'italic']),
    [`${element}.text-decoration`]: select('none', ['none', 'underline']),
    [`${element}.text-transform`]: select('none', ['none', 'uppercase', 'lowercase', 'capitalize']),
    [`${element}.font-size`]: int(14),
    [`${element}.font-color`]: color('#ffffff'),
    [`${element}.font-family`]: { type: 'string', default: 'Inter' },
    [`${element}.font-weight`]: select('400', ['300', '400', '500', '600', '700', '800', '900']),
    [`${element}.text-shadow-offset-x`]: int(0),
    [`${element}.text-shadow-offset-y`]: int(0),
    [`${element}.text-shadow-blur-radius`]: int(0),
    [`${element}.text-shadow-color`]: color('#000000'),
    [`${element}.text-stroke-width`]: int(0),
    [`${element}.text-stroke-color`]: color('#000000'),
  };
}

const SPEC_KEYS: Record<string, Spec> = {
  'chat.padding': int(0),
  'chat.padding-advanced': toggle(false),
  'chat.padding-top': int(0),
  'chat.padding-right': int(0),
  'chat.padding-bottom': int(0),
  'chat.padding-left': int(0),
  ...sharedKeys('bubble'),
  'bubble.direction': select('ltr', ['ltr', 'rtl']),
  'bubble.message-direction': select('bottom-up', ['bottom-up', 'top-down', 'left-to-right', 'right-to-left']),
  'bubble.full-width': toggle(false),
  'bubble.alignment': select('left', ['left', 'center', 'right']),
  'bubble.gap': int(10),
  'bubble.width': int(400),
  ...sharedKeys('avatar'),
  'avatar.show': toggle(true),
  'avatar.position': select('right', ['left', 'center', 'right']),
  'avatar.size': int(60),
  ...sharedKeys('username'),
  'username.position': select('above-message', ['above-message', 'inline']),
  ...typographyKeys('username'),
  ...sharedKeys('message'),
  ...typographyKeys('message'),
  'badges.show': toggle(true),
  'badges.position': select('before-name', ['before-name', 'after-name']),
};

const keysOf = (type: Spec['type']) => Object.entries(SPEC_KEYS).filter(([, spec]) => spec.type === type);
const sorted = (keys: string[]) => keys.map((k) => `values.${k}`).sort();

const server = apiTestServerForSuite({ rateLimit: { perMinute: 10_000 } });
let presetId: number;
beforeAll(async () => {
  const alice = server.ids.accounts.alice!.id;
  presetId = (await server.harness.service.createOverlay(alice, { name: 'Fresh', template: 'bubbles' })).id;
});

const put = (values: Record<string, unknown>) =>
  server.call('/template', { method: 'PUT', json: { scope: 'independent', preset_id: presetId, values } });

describe("the spec's settings tables", () => {
  // Runs first: the other tests write to the overlay.
  it('GET /template of a fresh overlay shows exactly the spec\'s keys with the spec\'s defaults', async () => {
    const answer = await server.call(`/template?preset_id=${presetId}`);
    expect(answer.status).toBe(200);
    const expected = Object.fromEntries(Object.entries(SPEC_KEYS).map(([key, spec]) => [key, spec.default]));
    expect(Object.keys(answer.body.data.settings_values).sort()).toEqual(Object.keys(expected).sort());
    expect(answer.body.data.settings_values).toEqual(expected);
  });

  it('every integer key takes its range\'s ends and refuses one past either end', async () => {
    const integers = keysOf('integer') as Array<[string, Extract<Spec, { type: 'integer' }>]>;
    for (const end of ['min', 'max'] as const) {
      const answer = await put(Object.fromEntries(integers.map(([key, spec]) => [key, spec[end]])));
      expect(answer.status, end).toBe(200);
      for (const [key, spec] of integers) expect(answer.body.data.settings_values[key], key).toBe(spec[end]);
    }
    const before = server.dump();
    for (const [end, step] of [['min', -1], ['max', 1]] as const) {
      const answer = await put(Object.fromEntries(integers.map(([key, spec]) => [key, spec[end] + step])));
      expect(answer.status, end).toBe(422);
      expect(errorFields(answer)).toEqual(sorted(integers.map(([key]) => key)));
    }
    expect(server.dump()).toEqual(before);
  });

  it('every select key takes each of its options and refuses values that are not one (case included)', async () => {
    const selects = keysOf('select') as Array<[string, Extract<Spec, { type: 'select' }>]>;
    const most = Math.max(...selects.map(([, spec]) => spec.options.length));
    for (let i = 0; i < most; i++) {
      const values = Object.fromEntries(selects.filter(([, spec]) => i < spec.options.length).map(([key, spec]) => [key, spec.options[i]]));
      const answer = await put(values);
      expect(answer.status, JSON.stringify(values)).toBe(200);
      expect(answer.body.data.settings_values).toMatchObject(values);
    }
    for (const wrong of ['bogus', '', 'SOLID']) {
      const answer = await put(Object.fromEntries(selects.map(([key]) => [key, wrong])));
      expect(answer.status).toBe(422);
      expect(errorFields(answer)).toEqual(sorted(selects.map(([key]) => key)));
    }
  });

  it('every toggle key takes JSON true and false only', async () => {
    const toggles = keysOf('toggle').map(([key]) => key);
    for (const value of [true, false]) {
      const answer = await put(Object.fromEntries(toggles.map((key) => [key, value])));
      expect(answer.status).toBe(200);
      for (const key of toggles) expect(answer.body.data.settings_values[key]).toBe(value);
    }
    for (const wrong of ['true', 1, 0]) {
      const answer = await put(Object.fromEntries(toggles.map((key) => [key, wrong])));
      expect(answer.status).toBe(422);
      expect(errorFields(answer)).toEqual(sorted(toggles));
    }
  });

  it('every colour key takes 3, 4, 6 or 8 hex digits or transparent, answering expanded, with alpha 00 as transparent', async () => {
    const colors = keysOf('color').map(([key]) => key);
    const accepted: Array<[string, string]> = [
      ['#ABC', '#aabbcc'], ['#abcd', '#aabbccdd'], ['#A1B2C3', '#a1b2c3'], ['#a1b2c3d4', '#a1b2c3d4'],
      ['transparent', 'transparent'], ['#1230', 'transparent'], ['#11223300', 'transparent'],
    ];
    for (const [sent, answered] of accepted) {
      const answer = await put(Object.fromEntries(colors.map((key) => [key, sent])));
      expect(answer.status, sent).toBe(200);
      for (const key of colors) expect(answer.body.data.settings_values[key], `${key} ${sent}`).toBe(answered);
    }
    for (const wrong of ['abc', '#ab', '#abcde', '#abcdefg', 'red', 0]) {
      const answer = await put(Object.fromEntries(colors.map((key) => [key, wrong])));
      expect(answer.status, String(wrong)).toBe(422);
      expect(errorFields(answer)).toEqual(sorted(colors));
    }
  });

  // "gradient: Complete normalized gradient string": the string the service answers is a value
  // it takes, so a tool may send back what it read (GET, change one key, PUT the whole map).
  it('every gradient key answers its normalized string, which it takes back as sent, also for a long one', async () => {
    const gradients = keysOf('gradient').map(([key]) => key);
    // 1,976 characters as sent; its normal form spells out each stop's colour and position.
    const long = `linear-gradient(${Array<string>(490).fill('red').join(',')})`;
    for (const sent of ['linear-gradient(to right, #F00, rgba(0, 0, 255, .5))', long]) {
      const first = await put(Object.fromEntries(gradients.map((key) => [key, sent])));
      expect(first.status, sent.slice(0, 60)).toBe(200);
      const answered = first.body.data.settings_values[gradients[0]!] as string;
      const again = await put(Object.fromEntries(gradients.map((key) => [key, answered])));
      expect(again.status, answered.slice(0, 60)).toBe(200);
      for (const key of gradients) expect(again.body.data.settings_values[key], key).toBe(answered);
    }
    const read = await server.call(`/template?preset_id=${presetId}`);
    expect((await put(read.body.data.settings_values)).status).toBe(200);
  });

  it('refuses a gradient whose normal form is over the length limit, storing nothing', async () => {
    const before = server.dump();
    // Four characters a stop as sent; some sixteen in the normal form (`#ff0000 12.34%, `).
    const stops = Math.floor((MAX_GRADIENT_LENGTH - 20) / 4);
    const sent = `linear-gradient(${Array<string>(stops).fill('red').join(',')})`;
    expect(sent.length).toBeLessThanOrEqual(MAX_GRADIENT_LENGTH);
    const answer = await put({ 'bubble.background-gradient': sent });
    expect(answer.status).toBe(422);
    expect(errorFields(answer)).toEqual(['values.bubble.background-gradient']);
    expect(answer.body.message).toContain(`longer than ${MAX_GRADIENT_LENGTH} characters`);
    expect(server.dump()).toEqual(before);
  });
});
