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
  // Rebuilt on (un)subscribe, never on emit, which runs for every chat line: a listener that
  // unsubscribes while handling does not skip its neighbour, and emitting allocates nothing.
  let calling: ReadonlyArray<(event: E) => void> = [];
  return {
    subscribe(listener) {
      listeners.add(listener);
      calling = [...listeners];
      return () => {
        if (listeners.delete(listener)) calling = [...listeners];
      };
    },
    emit(event) {
      const current = calling;
      for (let i = 0; i < current.length; i++) {
        try {
          current[i]!(event);
        } catch (error) {
          onError(error, event);
        }
      }
    },
  };
}
