// Puts a pushed style on the page: the settings style sheet and the web-font links it needs.
import type { OverlayPageOptions, OverlayStyle } from '../../service/push/protocol.ts';
import { googleFontRequests, googleFontStylesheetUrl } from '../font-stylesheets.ts';
import { overlayStyleSheet } from '../overlay-style-sheet.ts';

export class StyleApplier {
  readonly #sheet: HTMLStyleElement;
  readonly #fontLinks = new Map<string, HTMLLinkElement>();

  constructor(sheet: HTMLStyleElement) {
    this.#sheet = sheet;
  }

  apply(style: OverlayStyle, options: OverlayPageOptions): void {
    this.#sheet.textContent = overlayStyleSheet(style);
    if (options.fontStylesheetBaseUrl !== null) this.#loadFonts(style, options.fontStylesheetBaseUrl);
  }

  #loadFonts(style: OverlayStyle, baseUrl: string): void {
    const inUse = new Set<string>();
    for (const { family, weights } of googleFontRequests(style)) {
      inUse.add(family);
      const href = googleFontStylesheetUrl(baseUrl, family, weights);
      let link = this.#fontLinks.get(family);
      if (link?.dataset.requested === href) continue;
      if (link === undefined) {
        link = document.createElement('link');
        link.rel = 'stylesheet';
        this.#fontLinks.set(family, link);
        document.head.append(link);
      }
      link.dataset.requested = href;
      // The API refuses a whole request when the family lacks one weight: ask for its default then.
      link.onerror = () => {
        link.onerror = null;
        link.href = googleFontStylesheetUrl(baseUrl, family);
      };
      link.href = href;
    }
    // A family no longer used lets go of its stylesheet and font faces: a page open for hours, its
    // fonts changed now and then, would otherwise keep one per family ever shown. A family shown
    // again is asked for again, which the browser's cache answers (the service's are cacheable).
    for (const [family, link] of this.#fontLinks) {
      if (inUse.has(family)) continue;
      link.onerror = null;
      link.remove();
      this.#fontLinks.delete(family);
    }
  }
}
