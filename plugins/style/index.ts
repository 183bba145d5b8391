// The style plugin (moderators restyle the overlay live from chat):
//   !style <setting> <value>    set one setting        !style reset <setting>   back to inherited
//   !style show <setting>       show one (also: !style <setting> with no value)
//   !theme <name>               apply a theme from the config; !theme alone lists them (15 at
//                               most, fewer when they would not fit one chat message, "+N more")
// Every write goes to one overlay (config presetId, else the account's default overlay) in the
// scope that changes that overlay alone; see overlay-values.ts. docs/commands.md has the replies.
import {
  answerInChat, ChatRefusal, coerceChatValue, definePlugin, findSetting, fittedList, isOverlayStyleError, overlayErrorLine, quotedTyped, typedName,
  typedPrefix, z,
} from '../../src/sdk.ts';
import type { CommandInvocation, SettingsPatch, TemplateSettingsView } from '../../src/sdk.ts';
import { describeReset, describeSetting, shownValue, writeScopeFor } from './overlay-values.ts';
import { themesSchema } from './themes.ts';
import type { Themes } from './themes.ts';

const STYLE_NAMES = ['style'];
const THEME_NAMES = ['theme', 'themes'];
/** Themes listed before "+N more"; fewer when long names would not fit one chat message. */
const LISTED = 15;
/** A listing reply, mention included, stays within this: one Twitch message (500) with room to spare. */
const REPLY_ROOM = 490;

const configSchema = z.strictObject({
  /** The overlay the commands restyle; the account's default overlay when left out. */
  presetId: z.number().int().positive().optional(),
  /** Theme name -> setting key -> value (null resets the key). */
  themes: themesSchema.prefault({}),
});

export default definePlugin({
  name: 'style',
  config: configSchema,

  setup(ctx) {
    const { presetId, themes } = ctx.config;

    /** Runs `work`; an overlay service error becomes one reply line (a fault of the service also a warning in the log). */
    const answering = (call: CommandInvocation, work: () => Promise<string>) => answerInChat(call, work, { logger: ctx.logger });

    /** A configured presetId that names no overlay of the channel: said in the log once, for the streamer. */
    let toldMissingOverlay = false;
    const readOverlay = async (): Promise<TemplateSettingsView> => {
      try {
        return await ctx.overlay.getTemplate(presetId);
      } catch (error) {
        if (presetId !== undefined && isOverlayStyleError(error, 404) && !toldMissingOverlay) {
          toldMissingOverlay = true;
          ctx.logger.warn({ presetId }, `plugins.style.presetId ${presetId} names no overlay of this channel: !style and !theme cannot work; fix it or leave it out (the default overlay)`);
        }
        throw error;
      }
    };

    ctx.command({
      name: 'style',
      description: 'Restyles the overlay: !style <setting> <value> | !style reset <setting> | !style show <setting>',
      args: [{ name: 'setting', type: 'string' }, { name: 'value', type: 'rest', optional: true }],
      role: 'moderator',
      run: (call) => answering(call, async () => {
        // A key may come in quotes ("bubble.width"), as names and values may.
        const first = typedName(call.args.setting).toLowerCase();
        const rest = call.args.value?.trim();
        if (first === 'reset' || first === 'show') {
          const key = rest === undefined ? undefined : typedName(rest).toLowerCase();
          if (key === undefined || key === '' || /\s/.test(key)) {
            throw new ChatRefusal(`name one setting. Usage: ${typedPrefix(call, STYLE_NAMES)}style ${first} <setting>`);
          }
          return first === 'reset' ? resetSetting(key) : showSetting(key);
        }
        return rest === undefined ? showSetting(first) : setSetting(first, rest);
      }),
    });

    ctx.command({
      name: 'theme',
      aliases: ['themes'],
      description: 'Applies a theme from the config: !theme <name>; !theme alone lists them',
      args: [{ name: 'name', type: 'string', optional: true }],
      role: 'moderator',
      run: (call) => answering(call, async () => {
        const usage = `${typedPrefix(call, THEME_NAMES)}theme <name>`;
        const mention = `@${call.user.displayName} `.length;
        if (call.args.name === undefined) return listThemes(themes, usage, mention);
        return applyTheme(typedName(call.args.name).toLowerCase(), mention);
      }),
    });

    /** The overlay's read, after checking `key` is a setting of its template. */
    async function readFor(key: string): Promise<TemplateSettingsView> {
      if (findSetting(key) === undefined) throw new ChatRefusal(`${typedName(key).slice(0, 60)} is not a setting (keys look like bubble.width).`);
      const view = await readOverlay();
      if (!Object.hasOwn(view.settings_values, key)) throw new ChatRefusal(`${key} is not part of the ${view.template_name} template.`);
      return view;
    }

    async function setSetting(key: string, text: string): Promise<string> {
      const view = await readFor(key);
      try {
        const result = await ctx.overlay.updateTemplate({
          scope: writeScopeFor(view), preset_id: view.preset_id, values: { [key]: coerceChatValue(key, text) },
        });
        return `${key} is now ${shownValue(result.settings_values[key])}.`;
      } catch (error) {
        // The service names the forms its API takes; in chat a colour name works too.
        if (isOverlayStyleError(error, 422) && findSetting(key)?.type === 'color') {
          throw new ChatRefusal(`${overlayErrorLine(error).replace(/\.$/, '')}, or a colour name such as red.`);
        }
        throw error;
      }
    }

    async function resetSetting(key: string): Promise<string> {
      const view = await readFor(key);
      const result = await ctx.overlay.updateTemplate({ scope: writeScopeFor(view), preset_id: view.preset_id, values: { [key]: null } });
      return describeReset(view, result.settings_values, key);
    }

    async function showSetting(key: string): Promise<string> {
      return describeSetting(await readFor(key), key);
    }

    async function applyTheme(name: string, mention: number): Promise<string> {
      const theme = themes.get(name);
      if (theme === undefined) {
        if (themes.size === 0) throw new ChatRefusal('no themes are set up.');
        throw new ChatRefusal(withListing(themes, mention, (names) => `there is no theme ${quotedTyped(name, 32)}. Themes: ${names}.`));
      }
      const view = await readOverlay();
      // A theme may style elements this overlay's template lacks; those keys are left out.
      const values: SettingsPatch = {};
      let skipped = 0;
      for (const [key, value] of Object.entries(theme)) {
        if (Object.hasOwn(view.settings_values, key)) values[key] = value;
        else skipped += 1;
      }
      const count = Object.keys(values).length;
      if (count === 0) throw new ChatRefusal(`theme ${name} has no settings for the ${view.template_name} template.`);
      await ctx.overlay.updateTemplate({ scope: writeScopeFor(view), preset_id: view.preset_id, values });
      const note = skipped === 0 ? '' : ` (${skipped} left out: not part of the ${view.template_name} template)`;
      return `theme ${name} applied: ${count} setting${count === 1 ? '' : 's'}${note}.`;
    }
  },
});

function listThemes(themes: Themes, usage: string, mention: number): string {
  if (themes.size === 0) return 'no themes are set up.';
  return withListing(themes, mention, (names) => `themes: ${names}. Usage: ${usage}`);
}

/**
 * `line(names)` with the theme names joined by ", ", at most LISTED and as many as keep the reply
 * (with a mention `mention` characters long) one chat message, then "+N more".
 */
function withListing(themes: Themes, mention: number, line: (names: string) => string): string {
  return line(fittedList([...themes.keys()], REPLY_ROOM - mention - line('').length, LISTED));
}
