// The listener list behind a transport's `subscribe`. A listener that throws is logged and the
// others still hear the event, so one faulty consumer (overlay forwarding, say) cannot starve
// the host of chat.
import type { Logger } from 'pino';
import type { ChatTransportEvent, ChatTransportListener } from '../host/chat-transport.ts';

export interface ChatListeners {
  subscribe(listener: ChatTransportListener): () => void;
  emit(event: ChatTransportEvent): void;
}

export function createChatListeners(logger: Logger): ChatListeners {
  const listeners = new Set<ChatTransportListener>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          logger.error({ err: error, event: event.type }, 'a chat listener failed');
        }
      }
    },
  };
}
