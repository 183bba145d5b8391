// A set of listeners for one kind of event: subscribe returns its unsubscribe; emit calls every
// listener, and one that throws is reported through `onError` while the others still hear the
// event. Shared by the service's style event bus and the chat transports.
export interface ListenerSet<E> {
  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: E) => void): () => void;
  emit(event: E): void;
}

export function createListenerSet<E>(onError: (error: unknown, event: E) => void): ListenerSet<E> {
  const listeners = new Set<(event: E) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit(event) {
      // A copy, so a listener that unsubscribes while handling does not skip its neighbour.
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          onError(error, event);
        }
      }
    },
  };
}
