// For host tests that exercise chat only: an OverlayStyleClient any call to which fails loudly.
// Tests of the overlay client itself run against the real service (test/client).
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';

export function unusedOverlayClient(): OverlayStyleClient {
  const unused = (operation: string) => () => Promise.reject(new Error(`overlay client ${operation} is not used in this test`));
  return {
    getTemplate: unused('getTemplate'),
    updateTemplate: unused('updateTemplate'),
    listSkins: unused('listSkins'),
    updateSkin: unused('updateSkin'),
    unlockSkin: unused('unlockSkin'),
    revokeSkin: unused('revokeSkin'),
    listViewerSkins: unused('listViewerSkins'),
    registerViewer: unused('registerViewer'),
    listPickableSkins: unused('listPickableSkins'),
    pickSkin: unused('pickSkin'),
  };
}
