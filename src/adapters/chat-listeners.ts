// The listener list behind a transport's `subscribe`. A listener that throws is logged and the
// others still hear the event, so one faulty consumer (overlay forwarding, say) cannot starve
// the host of chat.
import type { Logger } from 'pino';
import type { ChatTransportEvent } from '../host/chat-transport.ts';
import { createListenerSet } from '../service/listener-set.ts';
import type { ListenerSet } from '../service/listener-set.ts';

export type ChatListeners = ListenerSet<ChatTransportEvent>;

export function createChatListeners(logger: Logger): ChatListeners {
  return createListenerSet<ChatTransportEvent>((error, event) => {
    logger.error({ err: error, event: event.type }, 'a chat listener failed');
  });
}
