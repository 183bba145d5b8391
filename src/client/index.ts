// The overlay client's public surface: the interface, its two implementations, the one error.
export type {
  ChatViewer, OverlayStyleClient, PickableSkin, RegisteredViewer, SettingsPatch, SkinGrantRequest, SkinPickResult,
  UpdateTemplateRequest, ViewerById, ViewerIdentifier,
} from './overlay-style-client.ts';
export { isOverlayStyleError, isServiceSideError, OverlayStyleError, unsupportedByRemote, wasLogged } from './overlay-style-error.ts';
export { overlayErrorLine } from './overlay-error-line.ts';
export type { OverlayStyleErrorInit, OverlayStyleErrorKind } from './overlay-style-error.ts';
export { createInProcessClient } from './in-process-client.ts';
export type { BundledOperations } from './in-process-client.ts';
export { createHttpClient } from './http-client.ts';
export type { HttpClientOptions } from './http-client.ts';
export { createOverlayClientFromConfig, overlayClientConfigSchema } from './client-from-config.ts';
export type { OverlayClientConfig, OverlayClientDependencies } from './client-from-config.ts';
export { DEFAULT_USER_AGENT } from './user-agent.ts';
