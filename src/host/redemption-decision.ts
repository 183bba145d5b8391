// A redemption handler's answer read as an outcome and the chat lines that tell the viewer about
// it, and the one call that says the right line once Twitch has settled the status
// (docs/plugins.md, "Telling the viewer").
import type { Logger } from 'pino';
import type { ChatReplyTarget, RedemptionDecision, RedemptionOutcome, ReplyOutcome } from './plugin-api.ts';

/**
 * How Twitch settled a redemption's status: `as-asked` (FULFILLED for a fulfil, or another final
 * status set meanwhile: the effect stands; CANCELED for a refund, the points back),
 * `refund-not-given` (a CANCELED Twitch did not take, the redemption not CANCELED there), or
 * `refund-unknown` (a CANCELED Twitch did not take, and asking for its status failed: no line is
 * said, as either may be untrue).
 */
export type RedemptionSettlement = 'as-asked' | 'refund-not-given' | 'refund-unknown';

/**
 * A decision's lines as the redemption ledger keeps them with the outcome, so they are said after
 * a restart too (src/host/redemptions/kept-replies.ts): the plugin whose share of the chat queue
 * says them, to whom, and the lines that are strings (no other is ever said).
 */
export interface RedemptionReplies {
  plugin: string;
  to: ChatReplyTarget;
  reply?: string;
  /** Only of a refund (a fulfil's is never said). */
  replyIfNotRefunded?: string;
}

/** What of the decision's lines is worth keeping; undefined when no line could ever be said. */
export function repliesOf(
  decision: NonNullable<ReturnType<typeof decisionOf>>, plugin: string, to: ChatReplyTarget,
): RedemptionReplies | undefined {
  const reply = typeof decision.reply === 'string' ? decision.reply : undefined;
  const replyIfNotRefunded = decision.outcome === 'refund' && typeof decision.replyIfNotRefunded === 'string' ? decision.replyIfNotRefunded : undefined;
  if (reply === undefined && replyIfNotRefunded === undefined) return undefined;
  const user = { displayName: to.user.displayName, ...(to.user.login === undefined ? {} : { login: to.user.login }) };
  return {
    plugin, to: { channel: to.channel, user },
    ...(reply === undefined ? {} : { reply }), ...(replyIfNotRefunded === undefined ? {} : { replyIfNotRefunded }),
  };
}

/** A handler's answer as outcome and lines (not yet checked); null when it is neither an outcome nor a RedemptionDecision. */
export function decisionOf(answer: unknown): { outcome: RedemptionOutcome; reply?: unknown; replyIfNotRefunded?: unknown } | null {
  if (answer === undefined || answer === 'fulfill') return { outcome: 'fulfill' };
  if (answer === 'refund') return { outcome: 'refund' };
  if (typeof answer !== 'object' || answer === null) return null;
  const decision = answer as Partial<RedemptionDecision>;
  if (decision.outcome !== 'fulfill' && decision.outcome !== 'refund') return null;
  return { outcome: decision.outcome, reply: decision.reply, replyIfNotRefunded: decision.replyIfNotRefunded };
}

/**
 * Says the decision's line for how the status settled, once (later calls say nothing), through
 * the plugin's `reply` (its share of the chat queue). A line that is not a string is logged as
 * an error now and never said.
 */
export function replyAfterStatus(
  decision: NonNullable<ReturnType<typeof decisionOf>>,
  to: ChatReplyTarget,
  reply: (to: ChatReplyTarget, text: string) => Promise<ReplyOutcome>,
  log: Logger,
): (settled: RedemptionSettlement) => Promise<void> {
  const lines: Record<RedemptionSettlement, unknown> = {
    'as-asked': decision.reply,
    'refund-not-given': decision.outcome === 'refund' ? decision.replyIfNotRefunded : undefined,
    'refund-unknown': undefined,
  };
  for (const [field, line] of [['reply', decision.reply], ['replyIfNotRefunded', decision.replyIfNotRefunded]] as const) {
    if (line !== undefined && typeof line !== 'string') log.error({ field }, `redemption handler's ${field} is not a string: it is not said`);
  }
  let said = false;
  return async (settled) => {
    const line = lines[settled];
    if (said || typeof line !== 'string') return;
    said = true;
    const outcome = await reply(to, line);
    // The chat queue has warned of it already, as of any reply; this only ties it to the redemption.
    if (outcome.status !== 'sent' && outcome.status !== 'coalesced') {
      log.debug({ outcome, settled }, 'the redemption\'s chat reply was not sent');
    }
  };
}
