// Keeps the channel's custom rewards in step with the config's `twitch.rewards`: creates the
// missing ones with the host's own client id (only the creating client id may later mark their
// redemptions), updates the ones whose settings changed, and disables the ones the config no
// longer lists (disabled, not deleted: their pending redemptions stay answerable). The Twitch id
// behind each reward key is remembered in the store. A reward with the same title that another
// app or the dashboard made cannot be managed: it is reported, never silently skipped.
// A reward of ours set to skip the request queue (should_redemptions_skip_request_queue: its
// redemptions arrive FULFILLED, beyond fulfilling or refunding) has the queue put back on.
import type { Logger } from 'pino';
import { ChannelPointsError } from './channel-points.ts';
import { errorText } from '../error-text.ts';
import type { ChannelPointsApi, RewardFields, RewardUpdate, TwitchReward } from './channel-points.ts';
import type { ManagedReward, ManagedRewardStore } from './redemption-ledger.ts';

export type RewardSyncAction = 'created' | 'updated' | 'unchanged' | 'disabled' | 'not-owned' | 'failed' | 'forgotten';

export interface RewardSyncEntry {
  rewardKey: string;
  title: string;
  /** The Twitch reward id, when there is one the host manages. */
  rewardId: string | null;
  action: RewardSyncAction;
  /** For not-owned and failed: what is wrong and what to do. */
  message?: string;
}

export interface RewardSyncOptions {
  rewards: Readonly<Record<string, RewardFields>>;
  channelPoints: Pick<ChannelPointsApi, 'listRewards' | 'createReward' | 'updateReward'>;
  store: ManagedRewardStore;
  broadcasterId: string;
  logger: Logger;
}

const COMPARED: readonly (keyof RewardFields)[] = [
  'title', 'cost', 'prompt', 'backgroundColor', 'userInputRequired', 'enabled', 'paused',
  'globalCooldownSeconds', 'maxPerStream', 'maxPerUserPerStream',
];

/**
 * The fields of `wanted` that differ from what Twitch has (a null colour means "leave it"), and the
 * request queue put back on when the reward skips it (the host makes its rewards with the queue on).
 */
export function rewardChanges(current: TwitchReward, wanted: RewardFields): RewardUpdate {
  const changes: RewardUpdate = {};
  if (current.skipsRequestQueue) changes.skipsRequestQueue = false;
  for (const field of COMPARED) {
    const want = wanted[field];
    if (field === 'backgroundColor') {
      if (want !== null && String(want).toUpperCase() !== current.backgroundColor.toUpperCase()) changes.backgroundColor = want as string;
      continue;
    }
    if (want !== current[field]) (changes as Record<string, unknown>)[field] = want;
  }
  return changes;
}

function notOwnedMessage(title: string): string {
  return `a reward titled "${title}" already exists on the channel, made on the Twitch dashboard or by another app, `
    + 'so chatskin cannot mark its redemptions fulfilled or refunded. Delete or rename that reward on Twitch, '
    + 'or give this one another title in the config.';
}

/** Why a reward could not be set up, with what to do where Twitch's refusal says it. */
export function rewardFailureMessage(error: unknown): string {
  if (error instanceof ChannelPointsError && error.status === 400 && /DUPLICATE/i.test(error.message)) {
    return 'Twitch refused the title: another reward on the channel has it (titles are unique, in any case).';
  }
  // Helix answers every channel-points call of a channel that is neither affiliate nor partner with a 403.
  if (error instanceof ChannelPointsError && error.status === 403 && /partner|affiliate/i.test(error.message)) {
    return `${errorText(error)} Channel-point rewards need an Affiliate or Partner channel (docs/twitch-setup.md).`;
  }
  return errorText(error);
}

export async function syncManagedRewards(options: RewardSyncOptions): Promise<RewardSyncEntry[]> {
  const { channelPoints, store, broadcasterId, logger } = options;
  const remote = await channelPoints.listRewards();
  const byId = new Map(remote.map((reward) => [reward.id, reward]));
  const stored = await store.listManagedRewards();
  const storedByKey = new Map(stored.map((reward) => [reward.rewardKey, reward]));
  const claimed = new Set(stored.filter((reward) => reward.rewardKey in options.rewards).map((reward) => reward.twitchRewardId));
  const report: RewardSyncEntry[] = [];
  /** Twitch ids now behind a configured key (a removed key's reward may have been taken over). */
  const inUse = new Set<string>();

  const remember = async (rewardKey: string, reward: TwitchReward, state: ManagedReward['state']): Promise<void> => {
    if (state === 'active') inUse.add(reward.id);
    const previous = storedByKey.get(rewardKey);
    if (previous?.twitchRewardId === reward.id && previous.state === state && previous.broadcasterId === broadcasterId) return;
    await store.saveManagedReward({ rewardKey, twitchRewardId: reward.id, broadcasterId, state });
  };

  for (const [rewardKey, wanted] of Object.entries(options.rewards)) {
    const log = logger.child({ rewardKey, title: wanted.title });
    try {
      const previous = storedByKey.get(rewardKey);
      let current = previous ? byId.get(previous.twitchRewardId) : undefined;
      if (current && !current.manageable) current = undefined;
      if (!current) {
        const sameTitle = remote.find((reward) => reward.title.toLowerCase() === wanted.title.toLowerCase());
        if (sameTitle && !sameTitle.manageable) {
          const message = notOwnedMessage(sameTitle.title);
          log.error({ rewardId: sameTitle.id }, `reward not managed: ${message}`);
          report.push({ rewardKey, title: wanted.title, rewardId: null, action: 'not-owned', message });
          continue;
        }
        // Ours already (the store was reset, or the key was renamed): take it over.
        if (sameTitle && !claimed.has(sameTitle.id)) current = sameTitle;
      }
      if (!current) {
        const created = await channelPoints.createReward(wanted);
        await remember(rewardKey, created, 'active');
        log.info({ rewardId: created.id }, 'created the channel-point reward');
        report.push({ rewardKey, title: wanted.title, rewardId: created.id, action: 'created' });
        continue;
      }
      const changes = rewardChanges(current, wanted);
      if (Object.keys(changes).length > 0) {
        const updated = await channelPoints.updateReward(current.id, changes);
        await remember(rewardKey, updated, 'active');
        if (changes.skipsRequestQueue === false) {
          log.warn({ rewardId: current.id }, 'the reward skipped Twitch\'s request queue (something using this app\'s client id turned '
            + 'should_redemptions_skip_request_queue on), so its redemptions arrived FULFILLED, beyond fulfilling or refunding: turned the queue back on');
        }
        log.info({ rewardId: current.id, changed: Object.keys(changes) }, 'updated the channel-point reward');
        report.push({ rewardKey, title: wanted.title, rewardId: current.id, action: 'updated' });
      } else {
        await remember(rewardKey, current, 'active');
        report.push({ rewardKey, title: wanted.title, rewardId: current.id, action: 'unchanged' });
      }
    } catch (error) {
      const message = rewardFailureMessage(error);
      log.error({ err: error }, `the channel-point reward could not be set up: ${message}`);
      report.push({ rewardKey, title: wanted.title, rewardId: storedByKey.get(rewardKey)?.twitchRewardId ?? null, action: 'failed', message });
    }
  }

  for (const previous of stored) {
    if (previous.rewardKey in options.rewards || inUse.has(previous.twitchRewardId)) continue;
    const current = byId.get(previous.twitchRewardId);
    const log = logger.child({ rewardKey: previous.rewardKey, rewardId: previous.twitchRewardId });
    try {
      if (!current || !current.manageable) {
        await store.forgetManagedReward(previous.rewardKey);
        log.info('a reward removed from the config is gone from Twitch too: forgotten');
        report.push({ rewardKey: previous.rewardKey, title: current?.title ?? '', rewardId: null, action: 'forgotten' });
        continue;
      }
      if (current.enabled) {
        await channelPoints.updateReward(current.id, { enabled: false });
        log.info('disabled the channel-point reward removed from the config');
      }
      await remember(previous.rewardKey, current, 'disabled');
      report.push({ rewardKey: previous.rewardKey, title: current.title, rewardId: current.id, action: 'disabled' });
    } catch (error) {
      const message = rewardFailureMessage(error);
      log.error({ err: error }, `the reward removed from the config could not be disabled: ${message}`);
      report.push({ rewardKey: previous.rewardKey, title: current?.title ?? '', rewardId: previous.twitchRewardId, action: 'failed', message });
    }
  }
  return report;
}
