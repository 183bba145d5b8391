// The push gateway's view of the style service: token lookup, the overlay snapshot turned into
// the pushed style (with where each font family loads from), and the service's event bus.
import type { StyleService } from '../style-service.ts';
import type { OverlaySnapshot } from '../operations/overlay-snapshot.ts';
import { TEXT_ELEMENTS } from '../settings/catalog.ts';
import type { SettingsValues } from '../settings/catalog.ts';
import { findFontFamily } from '../settings/fonts.ts';
import type { FontSource } from '../settings/fonts.ts';
import type { OverlayStyle } from './protocol.ts';
import type { PushSource } from './push-source.ts';

export type PushServiceView = Pick<StyleService, 'findOverlayByToken' | 'getOverlaySnapshot' | 'events'>;

export function servicePushSource(service: PushServiceView): PushSource {
  return {
    async findOverlayByToken(token) {
      const overlay = await service.findOverlayByToken(token);
      return overlay === null ? null : { id: overlay.id, accountId: overlay.accountId, version: overlay.version };
    },
    async readOverlayStyle(overlayId) {
      const snapshot = await service.getOverlaySnapshot(overlayId);
      if (snapshot === null) return null;
      return {
        overlay: { id: snapshot.overlay.id, name: snapshot.overlay.name },
        style: overlayStyleOf(snapshot),
        version: snapshot.version,
      };
    },
    subscribe: (listener) => service.events.subscribe(listener),
  };
}

export function overlayStyleOf(snapshot: OverlaySnapshot): OverlayStyle {
  return {
    template: snapshot.template,
    settings: snapshot.settings,
    skins: snapshot.skins,
    roleSkins: snapshot.roleSkins,
    viewerSkins: snapshot.viewerSkins,
    fonts: fontSourcesOf([snapshot.settings, ...snapshot.skins.map((skin) => skin.settings)]),
  };
}

/** Every `*.font-family` value of the given settings -> where the page loads it from. */
export function fontSourcesOf(layers: readonly SettingsValues[]): Record<string, FontSource> {
  const fonts: Record<string, FontSource> = {};
  for (const values of layers) {
    for (const element of TEXT_ELEMENTS) {
      const family = values[`${element}.font-family`];
      if (typeof family !== 'string' || Object.hasOwn(fonts, family)) continue;
      const entry = findFontFamily(family);
      // Stored families are validated against the catalog; an unknown one is treated as installed.
      fonts[family] = entry?.source ?? 'system';
    }
  }
  return fonts;
}
