// The skins plugin (viewers choose the skin their chat messages render with):
//   !skins           the skins I may pick: mine (granted or bought) and the free ones
//   !skin <name>     pick one (by name, slug or id);  !skin none  back to none;  !skin  my current one
// Showing the current one gives its cooldown back, so a pick may follow at once.
// A viewer is known by their Twitch user id. The Twitch chat gives the real one; the local chat
// gives the id of the viewer already holding the login, or else a made-up, stable one ("9" and
// 15 digits from the login), so skins work there too; beside a real Twitch chat it gives
// `local:<login>`, and such a line (or one without a user id at all) gets a one-line refusal.
// With the bundled service the viewer is signed in (created, or their login refreshed) on every
// use. A remote service has no endpoint for signing in, listing what a viewer may pick, or
// picking (the client's registerViewer throws kind `unsupported`, sending nothing), so there:
// - !skins lists what the API shows: the skins granted to the viewer (GET /viewers/{id}/skins,
//   by user id) and the channel's free active skins for the default overlay's template
//   (GET /skins); not purchases, global free skins or the current pick, which it cannot see;
// - !skin refuses in one line.
// docs/commands.md has the replies.
import {
  answerInChat, ChatRefusal, definePlugin, fittedList, isOverlayStyleError, quotedTyped, sameName, typedName, typedPrefix, z,
} from '../../src/sdk.ts';
import type { ChatUser, CommandInvocation, PickableSkin, ViewerSkinRef } from '../../src/sdk.ts';

const SKINS_NAMES = ['skins', 'myskins'];
const SKIN_NAMES = ['skin', 'pickskin'];
/** Names listed per group before "+N more"; fewer when long names would not fit one chat message. */
const LISTED = 15;
/** A listing reply, mention included, stays within this: one Twitch message (500) with room to spare. */
const REPLY_ROOM = 490;
const TWITCH_USER_ID = /^[0-9]{1,32}$/;
const NONE_WORDS = new Set(['none', 'off']);
/** Why !skin cannot work against a remote service. */
const REMOTE_PICK = 'picking a skin in chat needs the bundled overlay service; this bot uses a remote one, whose API cannot pick skins or show your pick.';

/** The skins' names, at most LISTED and at most `room` characters, then "+N more". */
function names(skins: readonly { name: string }[], room: number): string {
  return fittedList(skins.map((skin) => skin.name), room, LISTED);
}

/**
 * `line(first, second)` with both listings fitted into one chat message with the mention: each
 * group gets half the room, or more when the other needs less.
 */
function twoListings(
  user: ChatUser, first: readonly { name: string }[], second: readonly { name: string }[], line: (first: string, second: string) => string,
): string {
  const room = REPLY_ROOM - `@${user.displayName} `.length - line('', '').length;
  const firstText = names(first, Math.max(Math.floor(room / 2), room - names(second, room).length));
  return line(firstText, names(second, room - firstText.length));
}

/** By slug, name (any case) or id, as typed. */
function findTyped(skins: readonly PickableSkin[], typed: string): PickableSkin | undefined {
  const wanted = typed.toLowerCase();
  return skins.find((skin) => skin.slug === wanted)
    ?? skins.find((skin) => sameName(typed, skin.name))
    ?? skins.find((skin) => String(skin.id) === wanted);
}

export default definePlugin({
  name: 'skins',
  config: z.strictObject({}),

  setup(ctx) {
    /**
     * Signs the chatter in on the bundled service and gives their Twitch user id; `remote` when the
     * service is a remote one, which has no sign-in (nothing is sent then).
     */
    async function signIn(user: ChatUser): Promise<{ twitchUserId: string; remote: boolean }> {
      if (!TWITCH_USER_ID.test(user.id)) throw new ChatRefusal('skins need a Twitch account, and this chat has no Twitch user ids.');
      try {
        await ctx.overlay.registerViewer({ twitchUserId: user.id, login: user.login, displayName: user.displayName });
      } catch (error) {
        if (isOverlayStyleError(error) && error.kind === 'unsupported') return { twitchUserId: user.id, remote: true };
        throw error;
      }
      return { twitchUserId: user.id, remote: false };
    }

    /** The skins granted to the viewer through the API; none when the remote service does not know them. */
    async function grantedTo(twitchUserId: string): Promise<ViewerSkinRef[]> {
      try {
        return await ctx.overlay.listViewerSkins(twitchUserId);
      } catch (error) {
        if (isOverlayStyleError(error, 404)) return [];
        throw error;
      }
    }

    /** !skins against a remote service: what its API can show (see the header). */
    async function remoteListing(user: ChatUser, twitchUserId: string): Promise<string> {
      const [granted, channel] = await Promise.all([grantedTo(twitchUserId), ctx.overlay.listSkins()]);
      const free = channel.filter((skin) => skin.is_active && skin.availability === 'free');
      // GET /skins knows whether the channel's own skins are active; others' stay listed.
      const unlisted = new Set(channel.filter((skin) => !skin.is_active || skin.availability === 'free').map((skin) => skin.id));
      const own = granted.filter((skin) => !unlisted.has(skin.id));
      if (own.length === 0 && free.length === 0) return 'no skins are granted to you yet.';
      return twoListings(user, own, free, (ownNames, freeNames) => [
        `skins granted to you: ${own.length === 0 ? 'none yet' : ownNames}.`,
        ...(free.length === 0 ? [] : [`Free for everyone: ${freeNames}.`]),
      ].join(' '));
    }

    const answering = (call: CommandInvocation, work: () => Promise<string>) => answerInChat(call, work, {
      logger: ctx.logger,
      describe: (error) => (error.kind === 'unsupported' ? 'skins in chat need the bundled overlay service; this bot uses a remote one.' : undefined),
    });

    ctx.command({
      name: 'skins',
      aliases: ['myskins'],
      description: 'Lists the skins you may pick: !skins',
      cooldown: { global: 3, user: 30 },
      run: (call) => answering(call, async () => {
        const viewer = await signIn(call.user);
        if (viewer.remote) return remoteListing(call.user, viewer.twitchUserId);
        const skins = await ctx.overlay.listPickableSkins(viewer);
        const prefix = typedPrefix(call, SKINS_NAMES);
        const own = skins.filter((skin) => skin.availability !== 'free');
        const free = skins.filter((skin) => skin.availability === 'free');
        if (skins.length === 0) return 'you have no skins yet.';
        const picked = skins.find((skin) => skin.picked);
        return twoListings(call.user, own, free, (ownNames, freeNames) => [
          `your skins: ${own.length === 0 ? 'none yet' : ownNames}.`,
          ...(free.length === 0 ? [] : [`Free for everyone: ${freeNames}.`]),
          `Using: ${picked?.name ?? 'none'}.`,
          `Pick with ${prefix}skin <name>, or ${prefix}skin none.`,
        ].join(' '));
      }),
    });

    ctx.command({
      name: 'skin',
      aliases: ['pickskin'],
      description: 'Picks the skin of your messages: !skin <name> | !skin none',
      args: [{ name: 'name', type: 'rest', optional: true }],
      cooldown: { user: 10 },
      run: (call) => answering(call, async () => {
        const viewer = await signIn(call.user);
        const listing = `${typedPrefix(call, SKIN_NAMES)}skins lists yours.`;
        if (viewer.remote) {
          // Nothing is picked through a remote service: like any refused pick, it costs no cooldown.
          call.giveBackCooldown();
          throw new ChatRefusal(`${REMOTE_PICK} ${listing}`);
        }
        const typed = call.args.name === undefined ? undefined : typedName(call.args.name);
        if (typed === undefined || typed === '') {
          // Showing is not a pick: the next !skin <name> need not wait for the cooldown.
          call.giveBackCooldown();
          const picked = (await ctx.overlay.listPickableSkins(viewer)).find((skin) => skin.picked);
          return picked === undefined ? `you have no skin picked. ${listing}` : `you are using ${picked.name}. ${listing}`;
        }
        if (NONE_WORDS.has(typed.toLowerCase())) {
          const result = await ctx.overlay.pickSkin(viewer, null);
          return result.changed ? 'back to no skin.' : 'you had no skin picked.';
        }
        // Not among the pickable ones: a skin of the channel by that name (not held, inactive), so
        // the service says why whichever way it was typed; else the slug or id as typed.
        const match = findTyped(await ctx.overlay.listPickableSkins(viewer), typed)
          ?? (await ctx.overlay.listSkins()).find((skin) => sameName(typed, skin.name));
        try {
          const result = await ctx.overlay.pickSkin(viewer, match?.id ?? typed);
          const name = result.skin?.name ?? typed;
          return result.changed ? `your messages now use ${name}.` : `you already use ${name}.`;
        } catch (error) {
          if (!isOverlayStyleError(error) || error.kind !== 'service') throw error;
          // A refused pick is no pick: a corrected one need not wait for the cooldown.
          call.giveBackCooldown();
          const shown = quotedTyped(typed);
          if (error.status === 404) throw new ChatRefusal(`there is no skin ${shown}. ${listing}`);
          if (error.status === 403) throw new ChatRefusal(`you don't have the skin ${shown} yet.`);
          if (error.status === 422) throw new ChatRefusal(`the skin ${shown} is not available right now.`);
          throw error;
        }
      }),
    });
  },
});
