// Picks the overlay client from the config's section: the bundled service in this process, or a
// remote service over HTTP. The zod schema is exported so the host's config schema can embed it
// (and report errors with the file and path).
import { z } from 'zod';
import type { Dispatcher } from 'undici';
import { baseUrlProblem } from './base-url.ts';
import { createHttpClient } from './http-client.ts';
import type { HttpClientOptions } from './http-client.ts';
import {
  API_KEY_TEXT, isUserAgentText, MAX_RESPONSE_BYTES_LIMIT, MAX_RETRIES_LIMIT, MAX_TIMER_MS,
} from './http-option-rules.ts';
import { createInProcessClient } from './in-process-client.ts';
import type { BundledOperations } from './in-process-client.ts';
import type { OverlayStyleClient } from './overlay-style-client.ts';

const USER_AGENT_RULE = 'must be a header value naming the tool, such as "MyBot/1.0": printable ASCII characters, not only spaces';

export const overlayClientConfigSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('bundled') }),
  z.strictObject({
    mode: z.literal('remote'),
    /** The remote API's {base_url}, prefix included. */
    baseUrl: z.string({ error: 'must be an http(s) URL such as https://example.com/api/v1' }).superRefine((value, check) => {
      const problem = baseUrlProblem(value);
      // The config error repeats the value it refuses, unless that could show a secret.
      if (problem !== undefined) check.addIssue({ code: 'custom', message: problem.message, input: problem.mayHoldSecret ? undefined : value });
    }),
    apiKey: z.string().regex(API_KEY_TEXT, 'must be the API key token (visible characters, no spaces)'),
    // The limits createHttpClient checks, so a mistake is a config error naming the key, not a
    // TypeError when the host starts.
    userAgent: z.string().refine(isUserAgentText, USER_AGENT_RULE).optional(),
    timeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
    maxRetries: z.number().int().min(0).max(MAX_RETRIES_LIMIT).optional(),
    maxRetryAfterMs: z.number().int().min(0).max(MAX_TIMER_MS).optional(),
    maxResponseBytes: z.number().int().min(1).max(MAX_RESPONSE_BYTES_LIMIT).optional(),
  }),
]);

export type OverlayClientConfig = z.infer<typeof overlayClientConfigSchema>;

export interface OverlayClientDependencies {
  /** The bundled service and the account the host acts as; required for `mode: bundled`. */
  bundled?: { operations: BundledOperations; accountId: number };
  /** undici dispatcher for `mode: remote`. */
  dispatcher?: Dispatcher;
  /** For `mode: remote`: told of every wait before a retry (HttpClientOptions.logger). */
  logger?: HttpClientOptions['logger'];
  /** For `mode: remote`: told how each attempt ended (HttpClientOptions.onAttempt). */
  onAttempt?: HttpClientOptions['onAttempt'];
}

export function createOverlayClientFromConfig(
  config: OverlayClientConfig,
  dependencies: OverlayClientDependencies = {},
): OverlayStyleClient {
  const parsed = overlayClientConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new TypeError(`Invalid overlay client config:\n${z.prettifyError(parsed.error)}`);
  }
  const section = parsed.data;
  if (section.mode === 'bundled') {
    if (dependencies.bundled === undefined) {
      throw new TypeError('Overlay client mode "bundled" needs the bundled service (operations and accountId)');
    }
    return createInProcessClient(dependencies.bundled.operations, dependencies.bundled.accountId);
  }
  const { mode: _mode, ...http } = section;
  return createHttpClient({
    ...http,
    ...(dependencies.dispatcher ? { dispatcher: dependencies.dispatcher } : {}),
    ...(dependencies.logger ? { logger: dependencies.logger } : {}),
    ...(dependencies.onAttempt ? { onAttempt: dependencies.onAttempt } : {}),
  });
}
