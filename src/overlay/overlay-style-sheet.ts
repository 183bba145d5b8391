// The page's whole settings style sheet for one pushed style: the overlay-wide CSS, then per
// skin in use the CSS of the overlay's settings with the skin's overrides on top (skinLayer),
// scoped to the skin's class. Pure, shared by the page and the tests.
import type { OverlayStyle } from '../service/push/protocol.ts';
import { skinClassName } from './dom-classes.ts';
import { skinLayer } from './setting-read.ts';
import { settingsToCss } from './settings-css.ts';

export function overlayStyleSheet(style: OverlayStyle): string {
  const fontSources = style.fonts;
  let css = settingsToCss(style.settings, { fontSources });
  for (const skin of style.skins) {
    css += `/* skin ${skin.id} */\n`;
    const layer = skinLayer(style.settings, skin);
    css += settingsToCss(layer.values, {
      scopeClass: skinClassName(skin.id),
      scopeKeys: layer.skinKeys,
      fontSources,
    });
  }
  return css;
}
