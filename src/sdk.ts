// The one module plugins import: the plugin contract's types, `definePlugin`, and zod (so a
// plugin's settings schema is built with the host's own zod). See docs/plugins.md.
import type { z } from 'zod';
import type { PluginDefinition } from './host/plugin-api.ts';

export { z } from 'zod';

export type {
  ArgSpec, ArgType, ArgValues, ChatReplyTarget, ChatRole, ChatUser, CommandCooldown, CommandDefinition,
  CommandInvocation, PluginChat, PluginContext, PluginDefinition, PluginTeardown, RedemptionEvent,
  RedemptionHandler, RedemptionOutcome, ReplyOutcome,
} from './host/plugin-api.ts';

export type {
  OverlayStyleClient, SettingValue, SettingsPatch, SettingsValues, SkinGrantRequest, SkinUpdateResult, SkinView,
  TemplateSettingsView, TemplateUpdateResult, UnlockResult, UpdateTemplateRequest, ViewerIdentifier, ViewerSkinRef,
} from './client/overlay-style-client.ts';

/**
 * Declares a plugin; the default export of its `index.ts`. Only types are added: the settings
 * schema types `ctx.config`.
 */
export function definePlugin<Schema extends z.ZodType = z.ZodObject<{}>>(definition: PluginDefinition<Schema>): PluginDefinition<Schema> {
  return definition;
}
