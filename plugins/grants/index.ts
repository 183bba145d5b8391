// The grants plugin (moderators give and take back skins):
//   !grant @viewer <skin...>    grant a skin (POST /viewers/unlock-skin)
//   !revoke @viewer <skin...>   withdraw a grant (DELETE /viewers/unlock-skin); purchases stay
// <skin> is the rest of the line: a slug or name (spaces allowed) of the channel's skins for the
// overlay's template (GET /skins), a name from the config's skinIds (for global skins and other
// templates), or a numeric skin id.
// Only spec operations are used, so it works against a remote service too. A moderator naming
// themself in their first line is a viewer already: the host registers a chatter before their
// command runs (bundled service). docs/commands.md.
import { answerInChat, ChatRefusal, definePlugin, isOverlayStyleError, quotedTyped, sameName, typedName, z } from '../../src/sdk.ts';
import type { CommandInvocation, OverlayStyleError } from '../../src/sdk.ts';

const SKIN_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The API's 404 message for a viewer without an account (docs/api.md, POST and DELETE /viewers/unlock-skin). */
const VIEWER_NOT_FOUND = 'The viewer does not have an account on the service.';
/** A login of digits only, which the API's path identifier reads as a user id first. */
const ALL_DIGITS = /^[0-9]+$/;

interface SkinChoice {
  id: number;
  /** Known when the skin was found by name. */
  name?: string;
}

export default definePlugin({
  name: 'grants',
  config: z.strictObject({
    /** The overlay whose template's skins names are looked up in; the account's default overlay when left out. */
    presetId: z.number().int().positive().optional(),
    /** Extra names: name -> skin id, for skins GET /skins does not list (global platform skins, other templates). */
    skinIds: z.record(
      z.string().regex(SKIN_NAME, 'a skin name here is lowercase letters and digits in words joined by hyphens'),
      z.number().int().positive(),
    ).default({}),
  }),

  setup(ctx) {
    const { presetId, skinIds } = ctx.config;

    const answering = (call: CommandInvocation, work: () => Promise<string>) => answerInChat(call, work, { logger: ctx.logger });

    /** The skin typed: a configured name, a slug or name from GET /skins, else a numeric id. */
    async function chooseSkin(typed: string): Promise<SkinChoice> {
      const wanted = typed.toLowerCase();
      const configured = Object.hasOwn(skinIds, wanted) ? skinIds[wanted] : undefined;
      if (configured !== undefined) return { id: configured };
      const skins = await ctx.overlay.listSkins(presetId);
      const found = skins.find((skin) => skin.slug === wanted) ?? skins.find((skin) => sameName(typed, skin.name));
      if (found !== undefined) return { id: found.id, name: found.name };
      // An id is a positive whole number; 0 names no skin. One of the channel's own is named in the reply.
      if (/^[1-9][0-9]{0,14}$/.test(wanted)) {
        const listed = skins.find((skin) => skin.id === Number(wanted));
        return listed === undefined ? { id: Number(wanted) } : { id: listed.id, name: listed.name };
      }
      throw new ChatRefusal(`there is no skin ${quoted(typed)} on this channel.`);
    }

    /** After a 404 naming a viewer and a skin (by id): which of the two is missing. */
    async function whichIsMissing(viewer: string, skinId: number, typed: string): Promise<never> {
      try {
        await ctx.overlay.listViewerSkins(viewer);
      } catch (error) {
        if (isOverlayStyleError(error, 404)) throw new ChatRefusal(noAccount(viewer));
        throw error;
      }
      // GET /viewers/{identifier} reads a login of digits only as a user id first: the viewer found
      // may be another one, so the login may still have no account. A skin the channel lists exists.
      if (ALL_DIGITS.test(viewer)) {
        if ((await ctx.overlay.listSkins(presetId)).some((skin) => skin.id === skinId)) throw new ChatRefusal(noAccount(viewer));
        throw new ChatRefusal(`${viewer} has no account on the overlay service yet, or there is no skin ${quoted(typed)} on this channel.`);
      }
      throw new ChatRefusal(`there is no skin ${quoted(typed)} on this channel.`);
    }

    /** Whether the viewer holds no grant of the skin now; false when that cannot be read. */
    async function grantGone(viewer: string, skinId: number): Promise<boolean> {
      try {
        return !(await ctx.overlay.listViewerSkins(viewer)).some((held) => held.id === skinId);
      } catch {
        return false;
      }
    }

    ctx.command({
      name: 'grant',
      aliases: ['grantskin'],
      description: 'Grants a viewer a skin: !grant @viewer <skin...>',
      args: [{ name: 'viewer', type: 'user' }, { name: 'skin', type: 'rest' }],
      role: 'moderator',
      run: (call) => answering(call, async () => {
        const { viewer } = call.args;
        const typed = typedName(call.args.skin);
        const skin = await chooseSkin(typed);
        try {
          const result = await ctx.overlay.unlockSkin({ twitch_username: viewer, skin_id: skin.id });
          if (result.created) return `granted ${result.skin.name} to ${result.twitch_username}.`;
          // The first answer was lost: the grant held now may be this command's own.
          if (result.afterLostAnswer === true) return `${result.twitch_username} has ${result.skin.name} now.`;
          return `${result.twitch_username} already has ${result.skin.name}.`;
        } catch (error) {
          // A skin found in the channel's own list exists: the viewer is what is missing. (Asking
          // GET /viewers/{identifier} would read an all-digit login as another viewer's user id.)
          if (isOverlayStyleError(error, 404)) {
            if (skin.name !== undefined) throw new ChatRefusal(noAccount(viewer));
            return whichIsMissing(viewer, skin.id, typed);
          }
          if (isOverlayStyleError(error, 422) && error.errors?.skin_id !== undefined) {
            throw new ChatRefusal(`${skin.name ?? quoted(typed)} is not active, so it cannot be granted.`);
          }
          throw error;
        }
      }),
    });

    ctx.command({
      name: 'revoke',
      aliases: ['revokeskin'],
      description: 'Withdraws a skin granted to a viewer: !revoke @viewer <skin...>',
      args: [{ name: 'viewer', type: 'user' }, { name: 'skin', type: 'rest' }],
      role: 'moderator',
      run: (call) => answering(call, async () => {
        const { viewer } = call.args;
        const typed = typedName(call.args.skin);
        let grants;
        try {
          grants = await ctx.overlay.listViewerSkins(viewer);
        } catch (error) {
          if (isOverlayStyleError(error, 404)) throw new ChatRefusal(noAccount(viewer));
          throw error;
        }
        // The viewer's grants name their skins, global ones too; a configured name or an id also works.
        const wanted = typed.toLowerCase();
        const configured = Object.hasOwn(skinIds, wanted) ? skinIds[wanted] : undefined;
        const grant = grants.find((g) => g.slug === wanted) ?? grants.find((g) => sameName(typed, g.name))
          ?? grants.find((g) => g.id === configured || String(g.id) === wanted);
        const noGrant = `${viewer} has no grant of ${quoted(typed)} to revoke (a purchase is never revoked).`;
        // GET /viewers/{identifier} reads an all-digit login as a user id first, so the list may
        // have been another viewer's: the skin is then looked up as !grant does and the DELETE,
        // which names the login, tells whether this viewer holds a grant of it.
        const skin = grant ?? (ALL_DIGITS.test(viewer) ? await chooseSkin(typed).catch(() => undefined) : undefined);
        if (skin === undefined) throw new ChatRefusal(noGrant);
        try {
          await ctx.overlay.revokeSkin({ twitch_username: viewer, skin_id: skin.id });
        } catch (error) {
          // Revoked meanwhile by someone else, or (all-digit login) never granted, or (all-digit
          // login, the list read being another viewer's) no account at all: the DELETE's 404 is
          // the same status for each, and only its message, the API's own (docs/api.md), says
          // which. No request tells them apart otherwise: GET /viewers/{identifier} would read the
          // login as the user id again, and POST /viewers/unlock-skin would grant the skin.
          if (isOverlayStyleError(error, 404)) throw new ChatRefusal(error.message === VIEWER_NOT_FOUND ? noAccount(viewer) : noGrant);
          // The answer was lost once the request had left (the client does not send a DELETE
          // again): whether it was done is read from the viewer's grants.
          if (isOverlayStyleError(error) && mayHaveBeenDone(error) && await grantGone(viewer, skin.id)) {
            return `revoked ${skin.name ?? quoted(typed)} from ${viewer}.`;
          }
          throw error;
        }
        return `revoked ${skin.name ?? quoted(typed)} from ${viewer}.`;
      }),
    });
  },
});

function quoted(typed: string): string {
  return quotedTyped(typed);
}

/** A failure after which the request may have been carried out, its answer lost on the way back. */
function mayHaveBeenDone(error: OverlayStyleError): boolean {
  return error.afterLostAnswer || error.kind === 'timeout' || error.kind === 'network' || error.status === 502 || error.status === 504;
}

function noAccount(viewer: string): string {
  return `${viewer} has no account on the overlay service yet.`;
}
