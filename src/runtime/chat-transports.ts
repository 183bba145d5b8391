// Builds the chat transports the config asks for and wires their events to the rest of the
// process: chat is shown on the channel's overlays, and chatters are registered as viewers
// ("signed in" when the bot first sees them, DESIGN.md section 2).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  createLocalChatTransport, createTwitchChatTransport, overlayChatEventOf, registerLocalChatSayRoute, twitchChatOptionsFromConfig,
} from '../adapters/index.ts';
import type { LocalChatOptions, LocalChatTransport, TwitchChatTransport } from '../adapters/index.ts';
import type { Config } from '../config/index.ts';
import { normalizeChannel } from '../host/index.ts';
import type { ChatTransport } from '../host/index.ts';
import type { PushGateway } from '../service/push/push-gateway.ts';
import type { StyleService } from '../service/style-service.ts';
import type { Account } from '../service/types.ts';
import { createViewerRegistrations } from './viewer-registrations.ts';

export interface ChatTransportDeps {
  logger: Logger;
  service: StyleService;
  gateway: PushGateway;
  account: Account;
  app: FastifyInstance;
  stdin: NodeJS.ReadableStream | null | undefined;
  stdout: { write(text: string): unknown };
  /** Runs a redemption typed in the local chat (`/redeem`) through the plugins; used only while Twitch chat is off. */
  redeem: NonNullable<LocalChatOptions['redeem']>;
}

export interface StartedTransports {
  list: ChatTransport[];
  twitch: TwitchChatTransport | null;
  local: LocalChatTransport | null;
  /** The chatter's viewer registration, when it is waiting or under way (sent at once); else undefined. */
  registeredFor(user: { id: string }): Promise<void> | undefined;
  /**
   * Signs a redemption's viewer in as their chat line would (the same filter and queue: only when
   * new or renamed) and gives their registration under way (sent at once), else undefined. It never
   * rejects: a failed registration is logged as a chatter's is, and tried again next time.
   */
  signInRedeemer(user: { id: string; login: string; displayName: string }): Promise<void> | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createChatTransports(config: Config, deps: ChatTransportDeps): StartedTransports {
  const { logger } = deps;
  const twitch = config.twitch.enabled
    ? createTwitchChatTransport(twitchChatOptionsFromConfig(config.twitch), logger)
    : null;
  // The overlay shows channel.login's chat and only its roles restyle it: a channel list without
  // it (twitch.channels: [bob]) leaves the overlay without chat, which nothing else would say.
  if (config.twitch.enabled && !config.twitch.channels.some((channel) => normalizeChannel(channel) === normalizeChannel(config.channel.login))) {
    logger.warn({ channels: config.twitch.channels, channel: config.channel.login },
      `twitch.channels leaves out channel.login (${config.channel.login}): its chat is not read, so the overlay shows no chat and its moderators cannot use the commands; add it to twitch.channels`);
  }
  const local = config.localChat.enabled
    ? createLocalChatTransport({
      channel: config.channel.login,
      stdin: config.localChat.stdin ? (deps.stdin === undefined ? process.stdin : deps.stdin) : null,
      output: deps.stdout,
      broadcasterUserId: deps.account.twitchUserId,
      // Beside a real Twitch chat, made-up local viewers must not take real viewers' logins.
      viewerIds: twitch === null,
      // Nor without it: a login a viewer already holds is spoken as that viewer, not taken.
      knownViewerId: (login) => knownViewerIdOf(deps.service, login),
      // Beside Twitch chat, rewards are redeemed there, by real viewers.
      redeem: twitch === null ? deps.redeem : undefined,
      logger,
    })
    : null;
  // The route must exist before the server listens; it answers loopback clients only.
  if (local) {
    registerLocalChatSayRoute(deps.app, local, {
      overlayToken: async () => (await deps.service.listOverlays(deps.account.id)).find((overlay) => overlay.isDefault)?.token ?? null,
    });
  }

  const signIn = createViewerRegistrations({ service: deps.service, logger });
  const ownChannel = normalizeChannel(config.channel.login);
  const wire = (transport: ChatTransport, registersViewers: boolean) => transport.subscribe((event) => {
    // The overlay shows the account's own channel; other channels the bot joined stay off it.
    if (event.channel !== ownChannel) return;
    const shown = overlayChatEventOf(event);
    if (shown) deps.gateway.pushChatEvent(deps.account.id, shown);
    if (registersViewers) signIn.chatLine(event);
  });
  if (twitch) wire(twitch, true);
  // Local chatters have made-up ids: with Twitch on, they must not take real viewers' logins.
  if (local) wire(local, twitch === null);

  const list = [twitch, local].filter((t): t is NonNullable<typeof t> => t !== null);
  return {
    list, twitch, local,
    registeredFor: (user) => signIn.registeredFor(user.id),
    signInRedeemer: (user) => signIn.redeemer(user),
    async start() {
      local?.start();
      // Not awaited: it retries while Twitch is unreachable and rejects only when it cannot log in.
      twitch?.start().catch((error: unknown) => logger.error({ err: error }, 'Twitch chat could not log in'));
    },
    async stop() {
      local?.stop();
      // Lines taken before the stop (a look-up may hold one) are sent, so their chatters are registered.
      await local?.idle();
      await twitch?.stop();
      // Chatters seen before the stop are still registered, before the database closes.
      await signIn.stop();
    },
  };
}

/**
 * The Twitch user id of the viewer holding `login`, or null when none does. findViewer reads an
 * all-digit login as a user id first; when that is another viewer's id, the login's holder
 * cannot be told, so this rejects (the local chat then sends the line as no viewer at all).
 */
async function knownViewerIdOf(service: StyleService, login: string): Promise<string | null> {
  const viewer = await service.findViewer(login);
  if (viewer === null) return null;
  if (viewer.twitchUsername === login) return viewer.twitchUserId;
  throw new Error(`the login ${login} is also the user id of viewer ${viewer.twitchUsername ?? viewer.twitchUserId}; who holds the login is unknown`);
}
