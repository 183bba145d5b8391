// skin-shop: channel-point rewards that unlock overlay skins. Each reward key (a reward the host
// manages, declared under `twitch.rewards`) is mapped to a skin slug in this plugin's settings; a
// redemption signs the viewer in, unlocks the skin for them, says so in chat and is fulfilled.
// When the skin cannot be unlocked (unknown or inactive, already owned, the service failing after
// retries) the redemption is refunded and chat says why. See docs/redemptions.md.
import { definePlugin, isOverlayStyleError, overlayErrorLine, z } from '../../src/sdk.ts';
import type { OverlayStyleClient, PluginContext, RedemptionEvent, SkinView } from '../../src/sdk.ts';

const REWARD_KEY = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

const settingsSchema = z.strictObject({
  /** Reward key (as under twitch.rewards) -> slug of the skin it unlocks. */
  rewards: z.record(
    z.string().regex(REWARD_KEY, { error: 'reward keys are 1 to 100 letters, digits, _ . : or -' }),
    z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: 'must be a skin slug (lowercase letters, digits, - or _)' }),
  ).default({}),
  /** Tries of a call that fails because the service is away, busy or failing. */
  attempts: z.number().int().min(1).max(10).default(3),
  /** Wait before the first retry; doubled for each next one. */
  retryDelayMs: z.number().int().min(0).max(60_000).default(500),
  /** Chat lines (after "@Viewer "); {skin} is the skin's name, {reason} why it was refunded. */
  messages: z.strictObject({
    unlocked: z.string().min(1).max(300).default('the {skin} skin is yours!'),
    refunded: z.string().min(1).max(300).default('{reason} Your points were refunded.'),
  }).prefault({}),
});

type Settings = z.output<typeof settingsSchema>;



/** Worth another try: the service did not answer, was busy, or failed. */
function isTransient(error: unknown): boolean {
  if (!isOverlayStyleError(error)) return false;
  return error.kind === 'network' || error.kind === 'timeout' || error.status === 429 || error.status >= 500;
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

    function reply(redemption: RedemptionEvent, text: string): void {
      // Not awaited: the outcome must be recorded right after the unlock, not after chat pacing.
      void ctx.chat.reply({ channel: redemption.channel, user: redemption.user }, text).then((outcome) => {
        if (outcome.status !== 'sent' && outcome.status !== 'coalesced') {
          ctx.logger.warn({ redemption: redemption.id, outcome }, 'the redemption\'s chat reply was not sent');
        }
      });
    }

    function refund(redemption: RedemptionEvent, reason: string): 'refund' {
      ctx.logger.info({ redemption: redemption.id, viewer: redemption.user.login, reason }, 'refunding the skin redemption');
      reply(redemption, fill(messages.refunded, { reason }));
      return 'refund';
    }

    /** The viewer on the service: signed in (bundled service); a remote service knows viewers itself. */
    async function signIn(redemption: RedemptionEvent): Promise<void> {
      try {
        await withRetries('signing the viewer in', () => overlay.registerViewer({
          twitchUserId: redemption.user.id, login: redemption.user.login, displayName: redemption.user.displayName,
        }));
      } catch (error) {
        if (isOverlayStyleError(error) && error.kind === 'unsupported') return;
        throw error;
      }
    }

    async function findSkin(slug: string): Promise<SkinView> {
      const skin = (await withRetries('listing the skins', () => overlay.listSkins())).find((s) => s.slug === slug);
      if (!skin) throw new Refusal(`the skin "${slug}" is not available on this channel.`);
      if (!skin.is_active) throw new Refusal(`the ${skin.name} skin is not available right now.`);
      return skin;
    }

    async function unlock(redemption: RedemptionEvent, slug: string): Promise<'fulfill' | 'refund'> {
      const attempt = redemption.attempt ?? 1;
      try {
        await signIn(redemption);
        const skin = await findSkin(slug);
        const result = await withRetries('unlocking the skin', () => overlay.unlockSkin({ twitch_user_id: redemption.user.id, skin_id: skin.id }));
        // On a later attempt the grant may be this redemption's own, made before an interruption.
        if (!result.created && attempt === 1) return refund(redemption, `you already have the ${skin.name} skin.`);
        ctx.logger.info({ redemption: redemption.id, viewer: redemption.user.login, skin: skin.slug, attempt }, 'unlocked a skin');
        reply(redemption, fill(messages.unlocked, { skin: skin.name }));
        return 'fulfill';
      } catch (error) {
        if (error instanceof Refusal) return refund(redemption, error.message);
        if (isOverlayStyleError(error)) {
          ctx.logger.error({ err: error, redemption: redemption.id }, 'the skin could not be unlocked');
          // The skin was found, so a 404 is about the viewer (a remote service that never saw them).
          if (error.kind === 'service' && error.status === 404) return refund(redemption, 'the overlay service does not know you yet.');
          const line = overlayErrorLine(error).replace(/\.$/, '');
          return refund(redemption, `the skin could not be unlocked: ${line.charAt(0).toLowerCase()}${line.slice(1)}.`);
        }
        throw error;
      }
    }

    const keys = Object.keys(rewards);
    if (keys.length === 0) {
      ctx.logger.warn('no rewards: map reward keys (from twitch.rewards) to skin slugs under plugins.skin-shop.rewards');
    }
    for (const [rewardKey, slug] of Object.entries(rewards)) {
      ctx.onRedemption(rewardKey, (redemption) => unlock(redemption, slug));
    }
  },
});
