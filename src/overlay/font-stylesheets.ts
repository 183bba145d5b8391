// Which web fonts a pushed style needs and the Google Fonts stylesheet URL for each. Only
// families whose catalog source is `google` are loaded; system and generic families need
// nothing. Pure, shared by the page and the tests.
import { TEXT_ELEMENTS } from '../service/settings/catalog.ts';
import type { OverlayStyle } from '../service/push/protocol.ts';
import { readSetting, skinLayer } from './setting-read.ts';

export interface FontRequest {
  family: string;
  /** Weights in use, ascending, e.g. ['400', '700']. */
  weights: string[];
}

/** Google-source families used by the overlay's settings or any of its skins, with their weights. */
export function googleFontRequests(style: OverlayStyle): FontRequest[] {
  const weightsByFamily = new Map<string, Set<string>>();
  const layers = [style.settings, ...style.skins.map((skin) => skinLayer(style.settings, skin).values)];
  for (const values of layers) {
    for (const element of TEXT_ELEMENTS) {
      if (!Object.hasOwn(values, `${element}.font-family`)) continue;
      const family = String(readSetting(values, `${element}.font-family`));
      if (style.fonts[family] !== 'google') continue;
      const weights = weightsByFamily.get(family) ?? new Set<string>();
      weights.add(String(readSetting(values, `${element}.font-weight`)));
      weightsByFamily.set(family, weights);
    }
  }
  return [...weightsByFamily].sort(([a], [b]) => a.localeCompare(b))
    .map(([family, weights]) => ({ family, weights: [...weights].sort() }));
}

/**
 * CSS2 API URL: `<base>?family=Open+Sans:wght@400;700&display=swap`. Without `weights` the
 * family's default style is asked for: the fallback when a family lacks a requested weight
 * (the API then answers 400 for the whole request).
 */
export function googleFontStylesheetUrl(baseUrl: string, family: string, weights?: readonly string[]): string {
  const name = encodeURIComponent(family).replace(/%20/g, '+');
  const axis = weights !== undefined && weights.length > 0 ? `:wght@${weights.join(';')}` : '';
  const separator = baseUrl.includes('?') ? '&' : '?';
  return `${baseUrl}${separator}family=${name}${axis}&display=swap`;
}
