// The chat edges, for the composition root: Twitch chat (tmi.js), the local chat and its
// loopback route, and the mappings from chat events to viewers and overlay events (docs/chat.md).
export { createTwitchChatTransport, TwitchChatError } from './twitch-chat/twitch-chat-transport.ts';
export type {
  TwitchChatIdentity, TwitchChatOptions, TwitchChatState, TwitchChatStateChange, TwitchChatTransport,
} from './twitch-chat/twitch-chat-transport.ts';
export { twitchChatOptionsFromConfig } from './twitch-chat/twitch-chat-config.ts';
export { DEFAULT_RECONNECT_BACKOFF } from './twitch-chat/reconnect-backoff.ts';
export type { ReconnectBackoff } from './twitch-chat/reconnect-backoff.ts';
export { createLocalChatTransport, LocalChatInputError } from './local-chat/local-chat-transport.ts';
export type { LocalChatMessage, LocalChatOptions, LocalChatPost, LocalChatTransport } from './local-chat/local-chat-transport.ts';
export { LOCAL_CHAT_SAY_PATH, registerLocalChatSayRoute } from './local-chat/local-chat-say-route.ts';
export { LOCAL_CHAT_SYNTAX, parseLocalChatLine } from './local-chat/local-chat-line.ts';
export { localUserIdOf } from './local-chat/local-chat-tags.ts';
export { overlayChatEventOf, viewerIdentityFrom, viewerIdentityOf } from './chat-event-mapping.ts';
export type { ViewerIdentity } from './chat-event-mapping.ts';
export { createViewerRegistrationFilter } from './viewer-registration-filter.ts';
export type { ViewerRegistrationFilter } from './viewer-registration-filter.ts';
export { createViewerRegistrationQueue } from './viewer-registration-queue.ts';
export type { ViewerRegistrationQueue, ViewerRegistrationQueueOptions } from './viewer-registration-queue.ts';
