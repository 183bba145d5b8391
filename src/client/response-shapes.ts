// The success shapes of the spec's responses, as zod schemas. Parsing checks what a remote
// service sent and projects it onto exactly the spec's fields (unknown fields are dropped, as the
// bundled HTTP layer drops them), so both clients hand plugins the same objects, never shared
// references into the service.
import { z } from 'zod';
import { AVAILABILITIES, SCOPES } from '../service/types.ts';
import type {
  SkinUpdateResult, SkinView, TemplateSettingsView, TemplateUpdateResult, ViewerSkinRef,
} from '../service/types.ts';

const id = z.number().int();
const settingsValues = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

export const templateSettingsViewShape = z.object({
  template_id: id,
  template_name: z.string(),
  template_slug: z.string(),
  settings_values: settingsValues,
  source_values: settingsValues,
  override_values: settingsValues,
  overridden_keys: z.array(z.string()),
  sync_source_preset_id: id.nullable(),
  preset_id: id,
  preset_name: z.string(),
}) satisfies z.ZodType<TemplateSettingsView>;

export const templateUpdateResultShape = z.object({
  settings_values: settingsValues,
  source_values: settingsValues,
  override_values: settingsValues,
  scope: z.enum(SCOPES),
  preset_id: id,
}) satisfies z.ZodType<TemplateUpdateResult>;

export const skinViewShape = z.object({
  id,
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  availability: z.enum(AVAILABILITIES),
  settings_values: settingsValues,
  is_active: z.boolean(),
}) satisfies z.ZodType<SkinView>;

export const skinUpdateResultShape = z.object({
  id,
  name: z.string(),
  settings_values: settingsValues,
}) satisfies z.ZodType<SkinUpdateResult>;

/** `data` of the unlock response; `created` comes from the status (201) or the service's result. */
export const unlockDataShape = z.object({
  twitch_username: z.string(),
  skin: z.object({ id, name: z.string() }),
});

export const viewerSkinRefShape = z.object({ id, name: z.string(), slug: z.string() }) satisfies z.ZodType<ViewerSkinRef>;

/** `{ data: <shape> }`. */
export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ data });
}

/** `{ message, data: <shape> }` of the writes; the message is not passed on. */
export function messageDataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ message: z.string(), data });
}

/** `{ message }`: the error envelope, and the revoke answer. */
export const messageEnvelope = z.object({ message: z.string() });

/**
 * `{ message, errors? }` of an error response, and nothing else (the spec's error body): a
 * framework's own `{ message, error, statusCode }` is not the service's answer. `errors` is kept
 * only when it is field -> string[].
 */
export const errorEnvelope = z.strictObject({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional().catch(undefined),
});
