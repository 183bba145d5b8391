// A host on a memory chat transport, a manual clock and captured logs.
import { createHost } from '../../src/host/host.ts';
import type { Host, HostOptions, RedemptionResult, RedemptionSettlement } from '../../src/host/host.ts';
import type { ChatRateLimits, ChatTags } from '../../src/host/chat-transport.ts';
import { createMemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import type { MemoryChatTransport } from '../../src/host/memory-chat-transport.ts';
import type { OverlayStyleClient } from '../../src/client/overlay-style-client.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { captureLogs } from './log-capture.ts';
import type { LogEntry } from './log-capture.ts';
import { ManualClock, settle } from './manual-clock.ts';
import { unusedOverlayClient } from './unused-overlay-client.ts';

export interface TestHostOptions {
  /** Config file contents (as an object); `plugins` defaults to none. */
  config?: Record<string, unknown>;
  /** Default: a folder with no plugins, so only pluginDirs are read. */
  builtInPluginDir?: string;
  limits?: ChatRateLimits | null;
  overlayClient?: OverlayStyleClient;
  setupTimeoutMs?: number;
  stopTimeoutMs?: number;
  slowPluginCallMs?: number;
  stallWarningMs?: number;
  clock?: ManualClock;
  /** The chat's channels; default: #streamer only. */
  channels?: string[];
  /** HostOptions.beforeRedemption (chatskin's start signs the viewer who redeemed in). Default: none. */
  beforeRedemption?: HostOptions['beforeRedemption'];
}

export interface TestHost {
  host: Host;
  chat: MemoryChatTransport;
  clock: ManualClock;
  logs: LogEntry[];
  /** Lines the bot sent, text only. */
  said(): string[];
}

export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const config = parseConfig({ channel: { login: 'streamer' }, plugins: {}, ...options.config });
  const chat = createMemoryChatTransport({ channels: options.channels ?? ['streamer'], limits: options.limits ?? null });
  const clock = options.clock ?? new ManualClock();
  const { logger, entries } = captureLogs();
  const host = await createHost({
    config,
    logger,
    overlayClient: options.overlayClient ?? unusedOverlayClient(),
    chatTransports: [chat],
    clock,
    builtInPluginDir: options.builtInPluginDir ?? '/nonexistent-built-in-plugins',
    ...(options.setupTimeoutMs === undefined ? {} : { setupTimeoutMs: options.setupTimeoutMs }),
    ...(options.stopTimeoutMs === undefined ? {} : { stopTimeoutMs: options.stopTimeoutMs }),
    ...(options.slowPluginCallMs === undefined ? {} : { slowPluginCallMs: options.slowPluginCallMs }),
    ...(options.stallWarningMs === undefined ? {} : { stallWarningMs: options.stallWarningMs }),
    ...(options.beforeRedemption === undefined ? {} : { beforeRedemption: options.beforeRedemption }),
  });
  return { host, chat, clock, logs: entries, said: () => chat.sent.map((line) => line.text) };
}

/**
 * Sends a chat line to #streamer and returns what the bot answered to it: handlers that make
 * several service calls (each awaiting real SQLite work) get up to 20 turns to answer.
 */
export async function chatAnswers(test: TestHost, text: string, tags: ChatTags): Promise<string[]> {
  const before = test.chat.sent.length;
  test.chat.message('#streamer', text, tags);
  for (let i = 0; i < 20 && test.chat.sent.length === before; i++) await settle();
  await settle();
  return test.chat.sent.slice(before).map((line) => line.text);
}

/**
 * A redemption handled without Twitch (`test.host.handleRedemption(event)`), then its handler's
 * chat line said as the redemption pipeline says it once Twitch has the status: `as-asked` (the
 * status taken) by default, `refund-not-given` for a refund Twitch did not give.
 */
export async function redeemed(handled: Promise<RedemptionResult>, settled: RedemptionSettlement = 'as-asked'): Promise<RedemptionResult> {
  const result = await handled;
  if (result.outcome !== 'unhandled') await result.afterStatus?.(settled);
  return result;
}
