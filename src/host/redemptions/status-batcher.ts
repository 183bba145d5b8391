// Sends redemption statuses to Twitch in batches: every status asked for in the same turn of the
// event loop, per reward and status, goes out in one Helix call of up to 50 ids (Twitch's limit),
// and the ledger records them as sent in one transaction. A burst of redemptions then costs a
// few calls instead of one each, which keeps under Helix's 800 points a minute.
import { errorText } from '../error-text.ts';
import type { RedemptionStatusUpdate } from './channel-points.ts';

export const MAX_IDS_PER_STATUS_CALL = 50;

export type StatusSendResult = 'changed' | 'already-resolved';

/**
 * Twitch took the status, but the ledger could not record it (the store failed: locked, full): the
 * redemption stays owed its status, and the next reconciliation sends it again, which Twitch then
 * answers as already set, and records it. `cause` is the store's error.
 */
export class StatusNotRecordedError extends Error {
  constructor(cause: unknown) {
    super(`Twitch took the redemption's status, but the ledger could not record it: ${errorText(cause)}`, { cause });
    this.name = 'StatusNotRecordedError';
  }
}

export interface StatusBatcherOptions {
  /** Sets the status on Twitch; answers the ids it changed. */
  send(rewardId: string, ids: readonly string[], status: RedemptionStatusUpdate): Promise<string[]>;
  /** Runs after a successful call, for all its ids, before their promises resolve. */
  afterSent(ids: readonly string[]): Promise<void>;
  maxBatch?: number;
}

export interface StatusBatcher {
  /** Resolves once Twitch has the status (set by this call, or already final) and the ledger says so. */
  send(rewardId: string, redemptionId: string, status: RedemptionStatusUpdate): Promise<StatusSendResult>;
  /** Waits for every call under way. */
  drain(): Promise<void>;
}

interface Waiter {
  resolve(result: StatusSendResult): void;
  reject(error: unknown): void;
}

interface Group {
  rewardId: string;
  status: RedemptionStatusUpdate;
  waiters: Map<string, Waiter[]>;
}

export function createStatusBatcher(options: StatusBatcherOptions): StatusBatcher {
  const maxBatch = Math.min(options.maxBatch ?? MAX_IDS_PER_STATUS_CALL, MAX_IDS_PER_STATUS_CALL);
  const groups = new Map<string, Group>();
  const inFlight = new Set<Promise<void>>();
  let scheduled = false;

  async function flushGroup(group: Group): Promise<void> {
    const ids = [...group.waiters.keys()];
    try {
      const changed = new Set(await options.send(group.rewardId, ids, group.status));
      try {
        await options.afterSent(ids);
      } catch (error) {
        throw new StatusNotRecordedError(error);
      }
      for (const [id, waiters] of group.waiters) {
        for (const waiter of waiters) waiter.resolve(changed.has(id) ? 'changed' : 'already-resolved');
      }
    } catch (error) {
      for (const waiters of group.waiters.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }

  function start(group: Group): void {
    const flight = flushGroup(group).finally(() => inFlight.delete(flight));
    inFlight.add(flight);
  }

  function flushAll(): void {
    scheduled = false;
    const pending = [...groups.values()];
    groups.clear();
    for (const group of pending) start(group);
  }

  return {
    send(rewardId, redemptionId, status) {
      return new Promise<StatusSendResult>((resolve, reject) => {
        const key = `${status}\u0000${rewardId}`;
        let group = groups.get(key);
        if (!group) {
          group = { rewardId, status, waiters: new Map() };
          groups.set(key, group);
        }
        const waiters = group.waiters.get(redemptionId) ?? [];
        waiters.push({ resolve, reject });
        group.waiters.set(redemptionId, waiters);
        if (group.waiters.size >= maxBatch) {
          groups.delete(key);
          start(group);
        } else if (!scheduled) {
          scheduled = true;
          setImmediate(flushAll);
        }
      });
    },

    async drain() {
      while (inFlight.size > 0 || scheduled) {
        if (scheduled) await new Promise((resolve) => setImmediate(resolve));
        await Promise.allSettled([...inFlight]);
      }
    },
  };
}
