// Entrance animation names of the catalog mapped to animate.css (node_modules/animate.css,
// served to the page as /overlay-assets/animate.css). The page uses animate.css's @keyframes
// directly, so one CSS rule per element sets name, duration, delay and easing, and a settings
// change needs no change to the DOM. Derived from the catalog's list: `fade-in-up` -> `fadeInUp`.
import { ENTRANCE_ANIMATIONS } from '../service/settings/catalog.ts';

export interface EntranceAnimation {
  /** animate.css @keyframes name, or `none`. */
  keyframes: string;
  /** Declarations animate.css puts on the animation's class besides its name. */
  extra: Readonly<Record<string, string>>;
}

/** Class-level properties of animate.css (its `.animate__<name>` rules) the keyframes rely on. */
const CLASS_EXTRAS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  flipInX: { 'backface-visibility': 'visible' },
  flipInY: { 'backface-visibility': 'visible' },
  rotateIn: { 'transform-origin': 'center' },
};

export function keyframesName(entrance: string): string {
  if (entrance === 'none') return 'none';
  return entrance.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

export const ENTRANCE_TO_ANIMATE_CSS: ReadonlyMap<string, EntranceAnimation> = new Map(
  ENTRANCE_ANIMATIONS.map((name) => {
    const keyframes = keyframesName(name);
    return [name, Object.freeze({ keyframes, extra: CLASS_EXTRAS[keyframes] ?? {} })];
  }),
);
