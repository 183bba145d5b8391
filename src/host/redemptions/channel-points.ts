// What the redemption pipeline needs from Twitch's channel points (Helix), as a port: the Helix
// adapter (src/adapters/redemptions/helix-channel-points.ts) implements it with twurple.

export type RedemptionStatusUpdate = 'FULFILLED' | 'CANCELED';

/**
 * A redemption's status on Twitch when the host got it. A reward that skips the request queue
 * delivers its redemptions FULFILLED; only an UNFULFILLED one can still be fulfilled or refunded
 * (Helix "Update Redemption Status" changes UNFULFILLED redemptions only). UNKNOWN: EventSub's
 * `unknown`, or anything else it may send.
 */
export type RedemptionStatus = 'UNFULFILLED' | RedemptionStatusUpdate | 'UNKNOWN';

/** One channel-point redemption, as the EventSub notification or the Helix listing gives it. */
export interface TwitchRedemption {
  id: string;
  rewardId: string;
  broadcasterId: string;
  user: { id: string; login: string; displayName: string };
  /** What the viewer typed, for rewards that ask for it; "" otherwise. */
  input: string;
  redeemedAt: Date;
  status: RedemptionStatus;
}

/** A reward's settings, as the config declares them and Helix takes them. */
export interface RewardFields {
  title: string;
  cost: number;
  prompt: string;
  /** null: leave Twitch's colour as it is. */
  backgroundColor: string | null;
  userInputRequired: boolean;
  enabled: boolean;
  paused: boolean;
  /** null: no cooldown / no limit. */
  globalCooldownSeconds: number | null;
  maxPerStream: number | null;
  maxPerUserPerStream: number | null;
}

/** A reward as Twitch has it. */
export interface TwitchReward extends Omit<RewardFields, 'backgroundColor'> {
  id: string;
  backgroundColor: string;
  /** Whether this app's client id created it (only then may it be changed or its redemptions marked). */
  manageable: boolean;
  /**
   * Helix `should_redemptions_skip_request_queue`: its redemptions arrive FULFILLED, so they can be
   * neither fulfilled nor refunded. The host makes its rewards with it off and turns it off again.
   */
  skipsRequestQueue: boolean;
}

/** What an update may change: the config's settings, and the request queue put back on. */
export type RewardUpdate = Partial<RewardFields> & { skipsRequestQueue?: false };

export interface ChannelPointsApi {
  /** Every custom reward on the channel, each marked manageable or not. */
  listRewards(): Promise<TwitchReward[]>;
  createReward(fields: RewardFields): Promise<TwitchReward>;
  updateReward(rewardId: string, changes: RewardUpdate): Promise<TwitchReward>;
  /** The reward's UNFULFILLED redemptions, oldest first, every page. */
  listUnfulfilledRedemptions(rewardId: string): Promise<TwitchRedemption[]>;
  /**
   * Sets the status of up to 50 UNFULFILLED redemptions of one reward. Answers the ids Twitch
   * changed; the others were no longer UNFULFILLED (resolved already, here or on the dashboard).
   */
  setRedemptionStatus(rewardId: string, redemptionIds: readonly string[], status: RedemptionStatusUpdate): Promise<string[]>;
  /** A redemption's status on Twitch now; null when Twitch does not find it (its reward is gone). */
  redemptionStatus(rewardId: string, redemptionId: string): Promise<RedemptionStatus | null>;
  /**
   * The status on Twitch now of several redemptions of one reward (any number; Helix takes 50 ids
   * a call). An id Twitch does not find (its reward is gone: Helix answers 404) is left out.
   */
  redemptionStatuses(rewardId: string, redemptionIds: readonly string[]): Promise<Map<string, RedemptionStatus>>;
}

/** A refusal from Twitch: `status` is the HTTP status (0 when no answer arrived). */
export class ChannelPointsError extends Error {
  readonly status: number;
  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChannelPointsError';
    this.status = status;
  }
}
