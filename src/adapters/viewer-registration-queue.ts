// Chatters to register as viewers, sent to the service a few at a time instead of one per line.
//
// Registering is bookkeeping chat lines do not wait for, but a write that commits on its own
// costs a COMMIT (an fsync), and chatters often arrive one
// per event-loop turn. Held for at most `delayMs`, or until `maxPending` are waiting, they go
// out together, as one call that registers them in one transaction (bench:chat's registration
// part counts the COMMITs and CPU per chatter against one registerViewer each). A command from a
// chatter still waiting waits for them (registeredFor), so a plugin finds its chatter a viewer
// even on their first line. stop() sends what is still
// held, so a graceful stop loses none; after a crash, a chatter is registered on their next
// line, as the filter that picks them starts empty.
import type { ViewerIdentity } from './chat-event-mapping.ts';

export interface ViewerRegistrationQueueOptions {
  /** Registers viewers, answering one outcome per viewer in their order (the service's registerViewers). */
  register(viewers: ViewerIdentity[]): Promise<Array<PromiseSettledResult<unknown>>>;
  /** A registration failed (the caller forgets the chatter, so the next line tries again). */
  onError(viewer: ViewerIdentity, error: unknown): void;
  /** Longest a chatter waits to be sent. Default 100 ms. */
  delayMs?: number;
  /** Sent at once when this many are waiting. Default 256. */
  maxPending?: number;
}

export interface ViewerRegistrationQueue {
  /** Queues a chatter (a later one with the same user id replaces it: the newest name wins). */
  add(viewer: ViewerIdentity): void;
  /** Chatters waiting to be sent. */
  readonly pending: number;
  /**
   * A chatter waiting or being registered: sends them now and resolves once theirs settled
   * (registered or failed). Undefined when there is nothing to wait for.
   */
  registeredFor(twitchUserId: string): Promise<void> | undefined;
  /** Sends what is waiting now; resolves when every registration sent so far has settled. */
  flush(): Promise<void>;
  /** Sends what is waiting and waits for every registration; later adds are sent at once. */
  stop(): Promise<void>;
}

export function createViewerRegistrationQueue(options: ViewerRegistrationQueueOptions): ViewerRegistrationQueue {
  const delayMs = options.delayMs ?? 100;
  const maxPending = options.maxPending ?? 256;
  if (!(delayMs >= 0) || !Number.isInteger(maxPending) || maxPending < 1) {
    throw new RangeError(`delayMs must be 0 or more and maxPending a whole number of 1 or more, got ${delayMs} and ${maxPending}`);
  }
  let waiting = new Map<string, ViewerIdentity>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  /** The batch each chatter sent and not settled yet is in. */
  const inFlightFor = new Map<string, Promise<void>>();

  const send = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (waiting.size === 0) return;
    const batch = [...waiting.values()];
    waiting = new Map();
    const settled = options.register(batch).then((outcomes) => {
      batch.forEach((viewer, i) => {
        const outcome = outcomes[i];
        if (outcome?.status !== 'fulfilled') options.onError(viewer, outcome === undefined ? new Error('no outcome for this viewer') : outcome.reason);
      });
    }, (error: unknown) => {
      for (const viewer of batch) options.onError(viewer, error);
    });
    inFlight.add(settled);
    for (const viewer of batch) inFlightFor.set(viewer.twitchUserId, settled);
    void settled.finally(() => {
      inFlight.delete(settled);
      for (const viewer of batch) {
        if (inFlightFor.get(viewer.twitchUserId) === settled) inFlightFor.delete(viewer.twitchUserId);
      }
    });
  };

  const settledAll = async (): Promise<void> => {
    await Promise.all(inFlight);
  };

  return {
    add(viewer) {
      waiting.delete(viewer.twitchUserId);
      waiting.set(viewer.twitchUserId, viewer);
      if (stopped || waiting.size >= maxPending) send();
      // Unref'd: a queue with chatters waiting does not keep the process alive; stop() sends them.
      else if (timer === null) timer = setTimeout(send, delayMs).unref();
    },
    get pending() {
      return waiting.size;
    },
    registeredFor(twitchUserId) {
      if (waiting.has(twitchUserId)) send();
      return inFlightFor.get(twitchUserId);
    },
    flush() {
      send();
      return settledAll();
    },
    stop() {
      stopped = true;
      send();
      return settledAll();
    },
  };
}
