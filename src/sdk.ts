// The one module plugins import: the plugin contract's types, `definePlugin`, zod (so a plugin's
// settings schema is built with the host's own zod), the overlay client's error, and the settings
// catalog helpers a chat command needs to turn typed words into setting values. See docs/plugins.md.
import type { z } from 'zod';
import type { CommandInvocation, PluginDefinition } from './host/plugin-api.ts';
import { SETTINGS_BY_KEY } from './service/settings/catalog.ts';
import type { SettingSpec, SettingValue } from './service/settings/catalog.ts';
import { settingValueFromKeyText } from './service/settings/setting-text.ts';
import { INVISIBLE } from './host/typed-text.ts';

export { z } from 'zod';

export type {
  ArgSpec, ArgType, ArgValues, ChatReplyTarget, ChatRole, ChatUser, CommandCooldown, CommandDefinition,
  CommandInvocation, PluginChat, PluginContext, PluginDefinition, PluginTeardown, RedemptionDecision, RedemptionEvent,
  RedemptionHandler, RedemptionOutcome, ReplyOutcome,
} from './host/plugin-api.ts';

export type {
  Availability, ChatViewer, OverlayStyleClient, PickableSkin, RegisteredViewer, Scope, SettingValue, SettingsPatch,
  SettingsValues, SkinGrantRequest, SkinPickResult, SkinUpdateResult, SkinView, TemplateSettingsView,
  TemplateUpdateResult, UnlockResult, UpdateTemplateRequest, ViewerById, ViewerIdentifier, ViewerSkinRef,
} from './client/overlay-style-client.ts';

export { isOverlayStyleError, isServiceSideError, OverlayStyleError } from './client/overlay-style-error.ts';
export type { OverlayStyleErrorKind } from './client/overlay-style-error.ts';
/** An OverlayStyleError as one short chat line (`bubble.width must be an integer between 0 and 10000.`). */
export { overlayErrorLine } from './client/overlay-error-line.ts';
/** Answer a command in one line; throw ChatRefusal inside for a line meant for the chatter. */
export { answerInChat, ChatRefusal } from './host/chat-answer.ts';
/** `fittedList(names, room, most?)`: names joined by ", " while they fit in `room` characters (at most `most`), then "+N more" (docs/plugins.md). */
export { fittedList } from './host/fitted-list.ts';
/** Typed names as meant (quotes off, spaces collapsed) and typed text said back safely (no direction or invisible characters). */
export { quotedTyped, sameName, shortened, typedName } from './host/typed-text.ts';
export type { AnswerOptions } from './host/chat-answer.ts';

export type { SettingSpec, SettingType } from './service/settings/catalog.ts';
/** Checks a value against a setting's catalog entry (as the service does) and gives its stored form. */
export { checkSettingValue } from './service/settings/setting-text.ts';
/** What checkSettingValue gives: `{ ok: true, value }` (the stored form) or `{ ok: false, error }` (the service's message). */
export type { SettingValueResult } from './service/settings/setting-value.ts';
/** What a key falls back to on a template (by slug), when an overlay has no value of its own. */
export { templateDefault } from './service/settings/bundled-template-defaults.ts';

/** The catalog entry of a setting key (type, default, range, options, description); undefined for an unknown key. */
export function findSetting(key: string): SettingSpec | undefined {
  return SETTINGS_BY_KEY.get(key);
}

/**
 * The value to send for `key` from words typed in chat: `320` or `320px` -> 320 for an integer,
 * `on`/`off` -> true/false for a toggle, `red` -> `#ff0000` for a colour, `none` -> `""` for a
 * gradient, quotes removed. Text that does not fit stays a string, so the service's refusal
 * (and its message) is the one the chatter sees.
 */
export function coerceChatValue(key: string, text: string): SettingValue {
  return settingValueFromKeyText(key, text);
}

/**
 * The command prefix the chatter typed (the host's configured one, `!` by default), read from the
 * invocation's text: its first word less the command's name or alias typed. For usage lines.
 */
export function typedPrefix(call: Pick<CommandInvocation, 'text'>, names: readonly string[]): string {
  // Chat clients may add an invisible character; the router ignores it too.
  const first = call.text.replace(INVISIBLE, '').trim().split(/\s/, 1)[0] ?? '';
  const lower = first.toLowerCase();
  const longestFirst = [...names].sort((a, b) => b.length - a.length);
  const typed = longestFirst.find((name) => lower.length > name.length && lower.endsWith(name.toLowerCase()));
  return typed === undefined ? '!' : first.slice(0, first.length - typed.length);
}

/**
 * Declares a plugin; the default export of its `index.ts`. Only types are added: the settings
 * schema types `ctx.config`.
 */
export function definePlugin<Schema extends z.ZodType = z.ZodObject<{}>>(definition: PluginDefinition<Schema>): PluginDefinition<Schema> {
  return definition;
}
