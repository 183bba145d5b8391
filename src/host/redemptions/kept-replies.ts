// A redemption handler's chat lines (RedemptionReplies) as the ledger keeps them with the
// effect's outcome (LedgerReplies: opaque texts and a target to the service), and back, so a line
// whose status a stopped (or killed) host had not yet seen settled is said after the restart
// (docs/plugins.md, "Telling the viewer").
import type { RedemptionReplies } from '../redemption-decision.ts';
import type { LedgerReplies } from './redemption-ledger.ts';

/** The labels of the texts kept: RedemptionDecision's field names. */
const LABELS = ['reply', 'replyIfNotRefunded'] as const;

/** The target: whose share of the chat queue says the lines, and to whom. */
interface KeptTarget {
  plugin: string;
  channel: string;
  displayName: string;
  login?: string;
}

export function toLedgerReplies(replies: RedemptionReplies): LedgerReplies {
  const target: KeptTarget = {
    plugin: replies.plugin, channel: replies.to.channel, displayName: replies.to.user.displayName,
    ...(replies.to.user.login === undefined ? {} : { login: replies.to.user.login }),
  };
  const texts: Record<string, string> = {};
  for (const label of LABELS) {
    const text = replies[label];
    if (text !== undefined) texts[label] = text;
  }
  return { target: JSON.stringify(target), texts };
}

/** The lines back; null when the ledger's are not ones this host kept (another shape: never said). */
export function fromLedgerReplies(kept: LedgerReplies): RedemptionReplies | null {
  let target: Partial<KeptTarget>;
  try {
    target = JSON.parse(kept.target) as Partial<KeptTarget>;
  } catch {
    return null;
  }
  if (typeof target !== 'object' || target === null) return null;
  const { plugin, channel, displayName, login } = target;
  if (typeof plugin !== 'string' || typeof channel !== 'string' || typeof displayName !== 'string') return null;
  if (login !== undefined && typeof login !== 'string') return null;
  const replies: RedemptionReplies = { plugin, to: { channel, user: { displayName, ...(login === undefined ? {} : { login }) } } };
  for (const label of LABELS) {
    const text = kept.texts[label];
    if (typeof text === 'string') replies[label] = text;
  }
  return replies.reply === undefined && replies.replyIfNotRefunded === undefined ? null : replies;
}
