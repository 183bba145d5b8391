// Records a transport's events and waits for the one a test expects (the wait's timeout guards
// against a hung test; it is not an assertion on speed).
import type { ChatTransport, ChatTransportEvent } from '../../src/host/chat-transport.ts';
import { Waiters } from '../fakes/waiters.ts';

export interface ChatEventRecorder {
  readonly events: ChatTransportEvent[];
  /** The first event at index >= `since` (default: every event so far counts) that matches. */
  next<Type extends ChatTransportEvent['type']>(
    type: Type,
    predicate?: (event: Extract<ChatTransportEvent, { type: Type }>) => boolean,
    since?: number,
  ): Promise<Extract<ChatTransportEvent, { type: Type }>>;
  stop(): void;
}

export function recordChatEvents(transport: ChatTransport): ChatEventRecorder {
  const events: ChatTransportEvent[] = [];
  const waiters = new Waiters();
  const unsubscribe = transport.subscribe((event) => {
    events.push(event);
    waiters.check();
  });
  return {
    events,
    next(type, predicate = () => true, since = 0) {
      type Wanted = Extract<ChatTransportEvent, { type: typeof type }>;
      return waiters.waitFor(
        () => events.slice(since).find((event): event is Wanted => event.type === type && predicate(event as Wanted)),
        `a ${type} event from the ${transport.name} chat`,
      );
    },
    stop() {
      unsubscribe();
      waiters.cancelAll('recorder stopped');
    },
  };
}
