// The plugin contract: what a plugin defines and the context it is given. Plugins import these
// through src/sdk.ts only; the host implements them.
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { OverlayStyleClient } from '../client/overlay-style-client.ts';
import type { ChatRole } from './chat-roles.ts';

export type { ChatRole } from './chat-roles.ts';

/** What became of a chat message the bot was asked to send. */
export type ReplyOutcome =
  /** Every part reached the chat transport. */
  | { status: 'sent'; parts: number }
  /** The channel's queue (or the plugin's share of it) was full and the same text was already waiting: it goes out once. */
  | { status: 'coalesced' }
  /** Not queued (empty text or no text at all, queue full, no transport for the channel, host stopping); logged. */
  | { status: 'refused'; reason: string }
  /** The transport could not send it; logged. */
  | { status: 'failed'; reason: string };

/**
 * Argument types: `string` one word; `integer` a whole number (optionally within min..max);
 * `user` a Twitch login, `@` allowed, answered lowercase; `rest` all the remaining text (last).
 */
export type ArgType = 'string' | 'integer' | 'user' | 'rest';

export interface ArgSpec {
  readonly name: string;
  readonly type: ArgType;
  /** Optional arguments come after the required ones; a missing one is `undefined`. */
  readonly optional?: boolean;
  /** Bounds for `integer`. */
  readonly min?: number;
  readonly max?: number;
}

type ArgValue<Type extends ArgType> = Type extends 'integer' ? number : string;

/** `[{name:'n', type:'integer'}, {name:'why', type:'rest', optional:true}]` -> `{ n: number; why: string | undefined }`. */
export type ArgValues<Specs extends readonly ArgSpec[]> = {
  [Spec in Specs[number] as Spec['name']]: Spec extends { readonly optional: true } ? ArgValue<Spec['type']> | undefined : ArgValue<Spec['type']>;
};

export interface CommandCooldown {
  /** Seconds after a use during which nobody may use the command again. */
  global?: number;
  /** Seconds after a use during which the same chatter may not use it again. */
  user?: number;
  /** Chatters with at least this role neither wait for nor start cooldowns. Default `moderator`. */
  bypass?: ChatRole | 'nobody';
}

export interface ChatUser {
  /**
   * Twitch user id. The local chat's are made up: numeric and stable per login, or `local:<login>`
   * while Twitch chat runs too (docs/chat.md).
   */
  id: string;
  login: string;
  displayName: string;
  /** Highest role (broadcaster > moderator > vip > subscriber > everyone). */
  role: ChatRole;
}

/**
 * Where a reply goes: a channel, mentioning a chatter. A CommandInvocation is one. With `login`,
 * a localized display name (健二) is mentioned by the login (@kenji), which Twitch highlights.
 */
export interface ChatReplyTarget {
  channel: string;
  user: Pick<ChatUser, 'displayName'> & Partial<Pick<ChatUser, 'login'>>;
}

export interface CommandInvocation<Args = Record<string, string | number | undefined>> {
  /** The command's name (not the alias typed). */
  command: string;
  args: Args;
  channel: string;
  user: ChatUser;
  /** The whole chat line; of a reply, from the command on (without the `@name ` it starts with). */
  text: string;
  messageId: string | null;
  /** `@DisplayName text` in the same channel, on the chat the command came from. */
  reply(text: string): Promise<ReplyOutcome>;
  /** `text` in the same channel, on the chat the command came from. */
  say(text: string): Promise<ReplyOutcome>;
  /**
   * This use did not take its turn (it only showed something): the cooldowns it started are taken
   * back, so the chatter may use the command again at once. Once per chatter per cooldown length;
   * a second time in that span the use counts after all. Nothing for a chatter who bypasses cooldowns.
   */
  giveBackCooldown(): void;
}

export interface CommandDefinition<Specs extends readonly ArgSpec[] = readonly ArgSpec[]> {
  /** 1 to 32 of a-z (either case), 0-9, - and _, starting with a letter or digit; matched without regard to case. */
  name: string;
  aliases?: readonly string[];
  description?: string;
  args?: Specs;
  /** The least role that may use it. Default `everyone`. */
  role?: ChatRole;
  cooldown?: CommandCooldown;
  run(invocation: CommandInvocation<ArgValues<Specs>>): void | Promise<void>;
}

export interface RedemptionEvent {
  /** The redemption's id (Twitch's), unique. */
  id: string;
  /** The key the plugin registered (the host maps its managed rewards to keys). */
  rewardKey: string;
  channel: string;
  user: { id: string; login: string; displayName: string };
  /** Text the viewer typed, for rewards that ask for it; "" otherwise. */
  input: string;
  /**
   * 1 normally; above 1 when the host runs a redemption again whose earlier run was interrupted
   * (a crash before its outcome was recorded), so a handler can check for its own earlier effect.
   */
  attempt?: number;
}

/** `fulfill` marks the redemption done; `refund` cancels it and returns the points. */
export type RedemptionOutcome = 'fulfill' | 'refund';

/**
 * An outcome with the chat lines that tell the viewer about it (`@Viewer line`). The host says
 * them only once Twitch has settled the redemption's status, so a viewer is never told of a refund
 * Twitch did not give: a handler that says "Your points were refunded" itself says it before the
 * host has asked Twitch, which may refuse (a moderator resolved it meanwhile, its reward deleted).
 * Said at most once, never twice; a line still waiting when the host stops is kept in the redemption
 * ledger and said by the next start once the status is settled (docs/plugins.md).
 */
export interface RedemptionDecision {
  outcome: RedemptionOutcome;
  /**
   * Said once Twitch has the status: FULFILLED for `fulfill` (or another final status set
   * meanwhile: the effect stands), CANCELED for `refund` (the points are back).
   */
  reply?: string;
  /**
   * For `refund`: said instead of `reply` when Twitch did not refund (the redemption was no longer
   * UNFULFILLED and is not CANCELED: a moderator fulfilled it, or its reward was deleted). Absent: nothing is said then.
   */
  replyIfNotRefunded?: string;
}

/** Returning nothing fulfils; throwing refunds (and is logged). */
export type RedemptionHandler = (redemption: RedemptionEvent) =>
  RedemptionOutcome | RedemptionDecision | void | Promise<RedemptionOutcome | RedemptionDecision | void>;

export interface PluginChat {
  /** Sends `text` to `channel` on every chat serving it (Twitch, local), paced and split. */
  say(channel: string, text: string): Promise<ReplyOutcome>;
  /** `@DisplayName text` to the target's channel. */
  reply(to: ChatReplyTarget, text: string): Promise<ReplyOutcome>;
}

export interface PluginContext<Config = unknown> {
  /** The plugin's name (its folder's name). */
  readonly name: string;
  /** The plugin's settings from the config file, parsed by its schema. */
  readonly config: Config;
  /** A pino child logger whose lines carry `plugin: name`. */
  readonly logger: Logger;
  /** The overlay style service, bundled or remote alike. */
  readonly overlay: OverlayStyleClient;
  readonly chat: PluginChat;
  /** The login of the account this host acts for (config `channel.login`). */
  readonly channel: string;
  /** Registers a chat command (in setup; later, it is ignored and logged); throws when the name or an alias is taken or an argument list is malformed. */
  command<const Specs extends readonly ArgSpec[] = readonly []>(definition: CommandDefinition<Specs>): void;
  /** Handles redemptions of the reward known as `rewardKey` (in setup; later, it is ignored and logged); throws when another handler has it. */
  onRedemption(rewardKey: string, handler: RedemptionHandler): void;
  /**
   * Runs `run` every `intervalMs` (1 s to a day) on the host's clock, first after one interval;
   * returns what cancels it. May be called in setup or later (a command that switches an
   * announcement on). A run that throws or rejects is logged and the timer goes on; one still
   * running when the next is due makes that one skipped (the first skip is logged as a warning); every timer ends when the host stops or
   * the plugin is switched off, so it needs no teardown. Throws for a bad interval.
   */
  every(intervalMs: number, run: () => unknown): () => void;
}

/** Returned by setup when the plugin has something to release at shutdown (timers, sockets). */
export type PluginTeardown = () => void | Promise<void>;

export interface PluginDefinition<Schema extends z.ZodType = z.ZodType> {
  /** Must equal the plugin's folder name, which is its key under `plugins:` in the config. */
  name: string;
  /** Schema of the plugin's settings (its config entry without `enabled`). */
  config?: Schema;
  setup(context: PluginContext<z.output<Schema>>): void | PluginTeardown | Promise<void | PluginTeardown>;
}
