// skin-shop: channel-point rewards that unlock overlay skins. Each reward key (a reward the host
// manages, declared under `twitch.rewards`) is mapped in this plugin's settings to the skin it
// unlocks: a slug (one of the channel's own skins, found through GET /skins) or `{ skinId: <id> }`
// (any skin the channel may unlock, global platform skins too, which GET /skins does not list). A
// redemption unlocks the skin for the viewer (the host has signed them in to the bundled service,
// as for a command's chatter), says so in chat and is fulfilled.
// When the skin cannot be unlocked (unknown or inactive, already owned, the service failing after
// retries) the redemption is refunded and chat says why. The chat lines are the host's to say, once
// Twitch has settled the status (a RedemptionDecision's reply): "Your points were refunded" only
// when Twitch did refund them. Only spec operations are needed, so it
// works against a remote service too. See docs/redemptions.md.
import { definePlugin, isOverlayStyleError, overlayErrorLine, z } from '../../src/sdk.ts';
import type { OverlayStyleClient, PluginContext, RedemptionDecision, RedemptionEvent, UnlockResult } from '../../src/sdk.ts';

const REWARD_KEY = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

const SKIN_SLUG = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: 'must be a skin slug (lowercase letters, digits, - or _)' });

const SKIN_BY_ID = z.strictObject({
  skinId: z.number({ error: 'must be a skin id (a whole number above 0)' })
    .int({ error: 'must be a skin id (a whole number above 0)' })
    .positive({ error: 'must be a skin id (a whole number above 0)' }),
});

/** What a reward unlocks: a slug of the channel's own skins, or `{ skinId }` for any skin it may unlock. */
const rewardTarget = z.union([SKIN_SLUG, SKIN_BY_ID], {
  error: (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    const input: unknown = issue.input;
    return typeof input === 'object' && input !== null && !Array.isArray(input)
      ? 'must be { skinId: <skin id> }: the one key skinId, a whole number above 0'
      : 'must be a skin slug (the channel\'s own skin) or { skinId: <skin id> } (any skin the channel may unlock, global ones too)';
  },
});

const settingsSchema = z.strictObject({
  /** Reward key (as under twitch.rewards) -> the skin it unlocks: a slug, or `{ skinId }`. */
  rewards: z.record(
    z.string().regex(REWARD_KEY, { error: 'reward keys are 1 to 100 letters, digits, _ . : or -' }),
    rewardTarget,
  ).default({}),
  /** Tries of a call that fails because the service is away, busy or failing. */
  attempts: z.number().int().min(1).max(10).default(3),
  /** Wait before the first retry; doubled for each next one. */
  retryDelayMs: z.number().int().min(0).max(60_000).default(500),
  /**
   * Chat lines (after "@Viewer "), said once Twitch has the status; {skin} is the skin's name,
   * {reason} why it was refunded. `notRefunded`: a refund Twitch did not give (a moderator fulfilled
   * the redemption meanwhile, or its reward was deleted).
   */
  messages: z.strictObject({
    unlocked: z.string().min(1).max(300).default('the {skin} skin is yours!'),
    refunded: z.string().min(1).max(300).default('{reason} Your points were refunded.'),
    notRefunded: z.string().min(1).max(300).default('{reason} Twitch did not refund your points; a moderator can make it up to you.'),
  }).prefault({}),
});

type Settings = z.output<typeof settingsSchema>;
type RewardTarget = z.output<typeof rewardTarget>;

/** The skin to unlock: its id, and how chat names it until the service's answer gives its name. */
interface Target {
  id: number;
  /** `the Neon skin` (found by slug) or `the skin #12` (configured by id). */
  label: string;
}

/** Worth another try: the service did not answer, was busy, or failed. */
function isTransient(error: unknown): boolean {
  if (!isOverlayStyleError(error)) return false;
  return error.kind === 'network' || error.kind === 'timeout' || error.status === 429 || error.status >= 500;
}

/**
 * A failure after which the service may still have done the request, its answer lost on the way:
 * no answer at all, or one from something in between (502, 504), or any failure after an earlier
 * attempt of the client's lost its answer (afterLostAnswer). The service's own refusals (429,
 * 500, 503) to the only attempt changed nothing.
 */
function mayHaveBeenDone(error: unknown): boolean {
  if (!isOverlayStyleError(error)) return false;
  return error.afterLostAnswer || error.kind === 'network' || error.kind === 'timeout' || error.status === 502 || error.status === 504;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

class Refusal extends Error {}

export default definePlugin({
  name: 'skin-shop',
  config: settingsSchema,

  setup(ctx: PluginContext<Settings>) {
    const { rewards, attempts, retryDelayMs, messages } = ctx.config;
    const overlay: OverlayStyleClient = ctx.overlay;

    async function withRetries<T>(what: string, call: () => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await call();
        } catch (error) {
          if (!isTransient(error) || attempt >= attempts) throw error;
          const delay = retryDelayMs * 2 ** (attempt - 1);
          ctx.logger.warn({ err: error, attempt, delay }, `${what} failed; trying again`);
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    }

    /** The refund, with its lines: the host says the one for what Twitch did, once it has the status. */
    function refund(redemption: RedemptionEvent, reason: string): RedemptionDecision {
      ctx.logger.info({ redemption: redemption.id, viewer: redemption.user.login, reason }, 'refunding the skin redemption');
      return { outcome: 'refund', reply: fill(messages.refunded, { reason }), replyIfNotRefunded: fill(messages.notRefunded, { reason }) };
    }

    /** A slug among the channel's own skins (GET /skins); an id is taken as it is (the unlock checks it). */
    async function findSkin(wanted: RewardTarget): Promise<Target> {
      if (typeof wanted !== 'string') return { id: wanted.skinId, label: `the skin #${wanted.skinId}` };
      const skin = (await withRetries('listing the skins', () => overlay.listSkins())).find((s) => s.slug === wanted);
      if (!skin) throw new Refusal(`the skin "${wanted}" is not available on this channel.`);
      if (!skin.is_active) throw new Refusal(`the ${skin.name} skin is not available right now.`);
      return { id: skin.id, label: `the ${skin.name} skin` };
    }

    /**
     * After the unlock's 404 (the spec's answer for an unknown viewer, and the service's for a skin
     * the channel may not unlock): which of the two. The viewer's grants (GET /viewers/{id}/skins)
     * answer 404 when the service does not know them: with the bundled service, one whose sign-in
     * by the host failed (a database fault); with a remote one, a viewer it never signed in.
     */
    async function missingOn404(redemption: RedemptionEvent, target: Target): Promise<Refusal> {
      try {
        await withRetries('looking the viewer up', () => overlay.listViewerSkins(redemption.user.id));
      } catch (error) {
        if (isOverlayStyleError(error, 404)) return new Refusal('the overlay service does not know you yet.');
        throw error;
      }
      ctx.logger.warn({ redemption: redemption.id, skinId: target.id }, 'the service knows no skin with this id that the channel may unlock; check plugins.skin-shop.rewards');
      return new Refusal(`${target.label} is not available on this channel.`);
    }

    /** The skin among the viewer's grants (GET /viewers/{id}/skins), or undefined (also when the service cannot tell now). */
    async function grantHeld(redemption: RedemptionEvent, skinId: number): Promise<{ id: number; name: string } | undefined> {
      try {
        const grants = await withRetries('looking at the viewer\'s grants', () => overlay.listViewerSkins(redemption.user.id));
        const grant = grants.find((skin) => skin.id === skinId);
        return grant === undefined ? undefined : { id: grant.id, name: grant.name };
      } catch (error) {
        ctx.logger.warn({ err: error, redemption: redemption.id }, 'after a lost answer, the viewer\'s grants could not be read');
        return undefined;
      }
    }

    async function unlock(redemption: RedemptionEvent, wanted: RewardTarget): Promise<RedemptionDecision> {
      const attempt = redemption.attempt ?? 1;
      try {
        const target = await findSkin(wanted);
        let result: UnlockResult;
        // A try whose answer was lost may have made the grant that a later try hears is "already held".
        let lostAnswer = false;
        try {
          result = await withRetries('unlocking the skin', async () => {
            try {
              return await overlay.unlockSkin({ twitch_user_id: redemption.user.id, skin_id: target.id });
            } catch (error) {
              if (mayHaveBeenDone(error)) lostAnswer = true;
              throw error;
            }
          });
        } catch (error) {
          if (isOverlayStyleError(error, 404)) throw await missingOn404(redemption, target);
          if (isOverlayStyleError(error, 422) && error.errors?.skin_id !== undefined) throw new Refusal(`${target.label} is not available right now.`);
          // Every try failed, but one may have made the grant, its answer lost: refunding would
          // give the skin away with the points. The viewer's grants tell.
          const held = lostAnswer ? await grantHeld(redemption, target.id) : undefined;
          if (held === undefined) throw error;
          result = { created: false, afterLostAnswer: true, twitch_username: redemption.user.login, skin: held };
        }
        // The grant may be this redemption's own: made before an interruption (a later attempt), or
        // by a try whose answer was lost (the client's, or ours). Refunding it would give the skin away.
        const mayBeOwn = attempt > 1 || lostAnswer || result.afterLostAnswer === true;
        if (!result.created && !mayBeOwn) return refund(redemption, `you already have the ${result.skin.name} skin.`);
        ctx.logger.info({ redemption: redemption.id, viewer: redemption.user.login, skin: result.skin.name, skinId: result.skin.id, attempt }, 'unlocked a skin');
        return { outcome: 'fulfill', reply: fill(messages.unlocked, { skin: result.skin.name }) };
      } catch (error) {
        if (error instanceof Refusal) return refund(redemption, error.message);
        if (isOverlayStyleError(error)) {
          ctx.logger.error({ err: error, redemption: redemption.id }, 'the skin could not be unlocked');
          const line = overlayErrorLine(error).replace(/\.$/, '');
          return refund(redemption, `the skin could not be unlocked: ${line.charAt(0).toLowerCase()}${line.slice(1)}.`);
        }
        throw error;
      }
    }

    const keys = Object.keys(rewards);
    if (keys.length === 0) {
      ctx.logger.warn('no rewards: map reward keys (from twitch.rewards) to skin slugs or { skinId } under plugins.skin-shop.rewards');
    }
    for (const [rewardKey, wanted] of Object.entries(rewards)) {
      ctx.onRedemption(rewardKey, (redemption) => unlock(redemption, wanted));
    }
  },
});
