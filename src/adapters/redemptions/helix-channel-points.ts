// The pipeline's ChannelPointsApi over twurple's Helix client, acting as the broadcaster. twurple
// retries 5xx answers itself (3 times, 0.5/1/2 s) and answers a 401 with one token refresh and a
// retry; what still fails arrives here as a ChannelPointsError with Twitch's status and message.
import type { ApiClient, HelixCustomReward, HelixCustomRewardRedemption, HelixUpdateCustomRewardData } from '@twurple/api';
import { ChannelPointsError } from '../../host/redemptions/channel-points.ts';
import type { ChannelPointsApi, RedemptionStatus, RewardUpdate, TwitchRedemption, TwitchReward } from '../../host/redemptions/channel-points.ts';
import { describeTwitchError, isHttpStatusError, isTokenEndpointError } from '../twitch-auth/twitch-error.ts';

/**
 * Any failure as a ChannelPointsError carrying Twitch's status and message. A failed token refresh
 * is 401 "the broadcaster's token could not be refreshed". The original error is not kept as the
 * cause: twurple's message quotes the request URL, and a refresh URL holds secrets.
 */
export function toChannelPointsError(error: unknown, doing: string): ChannelPointsError {
  if (error instanceof ChannelPointsError) return error;
  if (isTokenEndpointError(error) || (error instanceof Error && error.name === 'CachedRefreshFailureError')) {
    return new ChannelPointsError(401, `${doing}: the broadcaster's token could not be refreshed`);
  }
  const { status, message } = describeTwitchError(error);
  return new ChannelPointsError(status, `${doing}: ${message}`);
}

function rewardOf(reward: HelixCustomReward, manageable: boolean): TwitchReward {
  return {
    id: reward.id,
    title: reward.title,
    cost: reward.cost,
    prompt: reward.prompt,
    backgroundColor: reward.backgroundColor,
    userInputRequired: reward.userInputRequired,
    enabled: reward.isEnabled,
    paused: reward.isPaused,
    globalCooldownSeconds: reward.globalCooldown || null,
    maxPerStream: reward.maxRedemptionsPerStream || null,
    maxPerUserPerStream: reward.maxRedemptionsPerUserPerStream || null,
    manageable,
    skipsRequestQueue: reward.autoFulfill,
  };
}

function redemptionOf(redemption: HelixCustomRewardRedemption): TwitchRedemption {
  return {
    id: redemption.id,
    rewardId: redemption.rewardId,
    broadcasterId: redemption.broadcasterId,
    user: { id: redemption.userId, login: redemption.userName, displayName: redemption.userDisplayName },
    input: redemption.userInput,
    redeemedAt: redemption.redemptionDate,
    status: redemptionStatusOf(redemption.isFulfilled, redemption.isCanceled),
  };
}

/** Helix's status (UNFULFILLED, FULFILLED or CANCELED), from twurple's two flags. */
function redemptionStatusOf(fulfilled: boolean, canceled: boolean): RedemptionStatus {
  if (fulfilled) return 'FULFILLED';
  return canceled ? 'CANCELED' : 'UNFULFILLED';
}

/** Only the fields given, in twurple's names (null limits switch the limit off). */
function twurpleFields(fields: RewardUpdate): HelixUpdateCustomRewardData {
  const data: HelixUpdateCustomRewardData = {};
  if (fields.title !== undefined) data.title = fields.title;
  if (fields.cost !== undefined) data.cost = fields.cost;
  if (fields.prompt !== undefined) data.prompt = fields.prompt;
  if (fields.backgroundColor !== undefined && fields.backgroundColor !== null) data.backgroundColor = fields.backgroundColor;
  if (fields.userInputRequired !== undefined) data.userInputRequired = fields.userInputRequired;
  if (fields.enabled !== undefined) data.isEnabled = fields.enabled;
  if (fields.paused !== undefined) data.isPaused = fields.paused;
  if (fields.globalCooldownSeconds !== undefined) data.globalCooldown = fields.globalCooldownSeconds;
  if (fields.maxPerStream !== undefined) data.maxRedemptionsPerStream = fields.maxPerStream;
  if (fields.maxPerUserPerStream !== undefined) data.maxRedemptionsPerUserPerStream = fields.maxPerUserPerStream;
  if (fields.skipsRequestQueue !== undefined) data.autoFulfill = fields.skipsRequestQueue;
  return data;
}

export function createHelixChannelPoints(apiClient: ApiClient, broadcasterId: string): ChannelPointsApi {
  const points = apiClient.channelPoints;

  async function call<T>(doing: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toChannelPointsError(error, doing);
    }
  }

  /** Helix Get Custom Reward Redemption by id, 50 ids a call; what Twitch does not find is left out. */
  async function redemptionStatuses(rewardId: string, redemptionIds: readonly string[]): Promise<Map<string, RedemptionStatus>> {
    const found = new Map<string, RedemptionStatus>();
    for (let start = 0; start < redemptionIds.length; start += 50) {
      const ids = redemptionIds.slice(start, start + 50);
      try {
        for (const redemption of await points.getRedemptionsByIds(broadcasterId, rewardId, ids)) {
          found.set(redemption.id, redemptionStatusOf(redemption.isFulfilled, redemption.isCanceled));
        }
      } catch (error) {
        // 404: the reward is gone (Twitch marked its UNFULFILLED redemptions FULFILLED), or none of them is found.
        if (isHttpStatusError(error) && error.statusCode === 404 && !isTokenEndpointError(error)) continue;
        throw toChannelPointsError(error, `reading the status of ${ids.length} redemption(s) of the reward ${rewardId}`);
      }
    }
    return found;
  }

  return {
    listRewards: () => call('listing the channel\'s rewards', async () => {
      const [all, manageable] = await Promise.all([
        points.getCustomRewards(broadcasterId, false),
        points.getCustomRewards(broadcasterId, true),
      ]);
      const ours = new Set(manageable.map((reward) => reward.id));
      return all.map((reward) => rewardOf(reward, ours.has(reward.id)));
    }),

    createReward: (fields) => call(`creating the reward "${fields.title}"`, async () => {
      const { isPaused: _paused, ...create } = twurpleFields(fields);
      const created = await points.createCustomReward(broadcasterId, { ...create, title: fields.title, cost: fields.cost, autoFulfill: false });
      // Creation takes no "paused"; a reward that should start paused is paused right after.
      if (fields.paused) return rewardOf(await points.updateCustomReward(broadcasterId, created.id, { isPaused: true }), true);
      return rewardOf(created, true);
    }),

    updateReward: (rewardId, changes) => call(`updating the reward ${rewardId}`, async () =>
      rewardOf(await points.updateCustomReward(broadcasterId, rewardId, twurpleFields(changes)), true)),

    listUnfulfilledRedemptions: (rewardId) => call(`listing UNFULFILLED redemptions of the reward ${rewardId}`, async () => {
      const all = await points.getRedemptionsForBroadcasterPaginated(broadcasterId, rewardId, 'UNFULFILLED', {}).getAll();
      return all.map(redemptionOf);
    }),

    redemptionStatus: async (rewardId, redemptionId) => (await redemptionStatuses(rewardId, [redemptionId])).get(redemptionId) ?? null,

    redemptionStatuses,

    setRedemptionStatus: async (rewardId, redemptionIds, status) => {
      try {
        const changed = await points.updateRedemptionStatusByIds(broadcasterId, rewardId, [...redemptionIds], status);
        return changed.map((redemption) => redemption.id);
      } catch (error) {
        // 404: none of them is UNFULFILLED any more (already FULFILLED/CANCELED, here or on the dashboard).
        if (isHttpStatusError(error) && error.statusCode === 404 && !isTokenEndpointError(error)) return [];
        throw toChannelPointsError(error, `marking ${redemptionIds.length} redemption(s) ${status}`);
      }
    },
  };
}
