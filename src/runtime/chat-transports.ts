// Builds the chat transports the config asks for and wires their events to the rest of the
// process: chat is shown on the channel's overlays, and chatters are registered as viewers
// ("signed in" when the bot first sees them, DESIGN.md section 2).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  createLocalChatTransport, createTwitchChatTransport, createViewerRegistrationFilter, createViewerRegistrationQueue,
  overlayChatEventOf, registerLocalChatSayRoute, twitchChatOptionsFromConfig, viewerIdentityOf,
} from '../adapters/index.ts';
import type { LocalChatOptions, LocalChatTransport, TwitchChatTransport } from '../adapters/index.ts';
import type { Config } from '../config/index.ts';
import { normalizeChannel, textTag } from '../host/index.ts';
import type { ChatTransport } from '../host/index.ts';
import type { PushGateway } from '../service/push/push-gateway.ts';
import { storageFaultOf, storageFaultText } from '../service/store/storage-fault.ts';
import type { StorageFault } from '../service/store/storage-fault.ts';
import type { StyleService } from '../service/style-service.ts';
import type { Account } from '../service/types.ts';

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

  const seen = createViewerRegistrationFilter();
  // A database that takes no writes (a full disk) fails every new chatter until mended: said once,
  // not once per chatter and line, until a registration goes through again.
  let storageFaultLogged: StorageFault | null = null;
  const registrations = createViewerRegistrationQueue({
    register: async (viewers) => {
      const outcomes = await deps.service.registerViewers(viewers);
      if (outcomes.some((outcome) => outcome.status === 'fulfilled')) storageFaultLogged = null;
      return outcomes;
    },
    onError(viewer, error) {
      seen.forget(viewer.twitchUserId);
      const fault = storageFaultOf(error);
      if (fault === null) {
        logger.warn({ err: error, login: viewer.login }, 'registering a chatter as a viewer failed');
      } else if (fault !== storageFaultLogged) {
        storageFaultLogged = fault;
        logger.error({ err: error, login: viewer.login, storageFault: fault },
          `registering chatters as viewers fails: ${storageFaultText(fault)}; each is tried again on their next line (said once until one is registered)`);
      }
    },
  });
  const ownChannel = normalizeChannel(config.channel.login);
  const wire = (transport: ChatTransport, registersViewers: boolean) => transport.subscribe((event) => {
    // The overlay shows the account's own channel; other channels the bot joined stay off it.
    if (event.channel !== ownChannel) return;
    const shown = overlayChatEventOf(event);
    if (shown) deps.gateway.pushChatEvent(deps.account.id, shown);
    if (!registersViewers || event.type !== 'message' || event.self) return;
    // The filter looks at the tags as sent; only a chatter it has not seen (or renamed) is checked
    // and normalized (viewerIdentityOf), which on every line cost more than the lookup itself.
    // textTag: a user id or display name "1" comes from tmi.js as true.
    const twitchUserId = textTag(event.tags['user-id']);
    const login = event.tags.username;
    if (twitchUserId === null || typeof login !== 'string') return;
    if (!seen.needsRegistering({ twitchUserId, login, displayName: textTag(event.tags['display-name']) ?? undefined })) return;
    const viewer = viewerIdentityOf(event);
    if (viewer) registrations.add(viewer);
  });
  if (twitch) wire(twitch, true);
  // Local chatters have made-up ids: with Twitch on, they must not take real viewers' logins.
  if (local) wire(local, twitch === null);

  const list = [twitch, local].filter((t): t is NonNullable<typeof t> => t !== null);
  return {
    list, twitch, local,
    registeredFor: (user) => registrations.registeredFor(user.id),
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
      await registrations.stop();
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
