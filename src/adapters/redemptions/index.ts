// Channel-point redemptions on Twitch: what the composition root and the CLI use.
export { startTwitchRedemptions } from './twitch-redemptions.ts';
export type { RedemptionsState, RedemptionsStatus, TwitchRedemptions, TwitchRedemptionsOptions } from './twitch-redemptions.ts';
export { authorizeBroadcaster, TwitchAuthError } from './authorize-broadcaster.ts';
export type { AuthorizeBroadcasterOptions, AuthorizedBroadcaster } from './authorize-broadcaster.ts';
export { BROADCASTER_SCOPE_NEEDS, BROADCASTER_SCOPES } from './scopes.ts';
export type { BroadcasterAuthStatus } from './broadcaster-auth.ts';
export type { EventSubStatus } from './redemption-listener.ts';
