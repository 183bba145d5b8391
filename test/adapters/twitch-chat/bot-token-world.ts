// Twitch for a bot whose chat token lives in a token file (twitch.bot.tokenFile): FakeHelix issues
// and refreshes the tokens (id.twitch.tv), FakeTwitchIrc lets in exactly the live ones of their
// account (so a token FakeHelix expired is refused at the next login, as Twitch does), and the
// token file sits in a temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';
import { FakeHelix } from '../../fakes/fake-helix.ts';
import type { FakeHelixOptions, HelixUser } from '../../fakes/fake-helix.ts';
import { FakeTwitchIrc } from '../../fakes/fake-twitch-irc.ts';
import type { FakeTwitchIrcOptions } from '../../fakes/fake-twitch-irc.ts';

export const BOT = 'chatskinbot';
export const CLIENT_ID = 'chatskinclientid';
export const CLIENT_SECRET = 'chatskinclientsecret';
export const OTHER_CLIENT_ID = 'otherclientid';
export const BOT_SCOPES = ['chat:read', 'chat:edit'];

export interface BotTokenWorldOptions {
  helix?: FakeHelixOptions;
  /** Besides acceptToken, which the world sets. */
  irc?: Omit<FakeTwitchIrcOptions, 'acceptToken' | 'rejectTokens'>;
}

export interface BotTokenWorld {
  helix: FakeHelix;
  irc: FakeTwitchIrc;
  bot: HelixUser;
  dir: string;
  tokenFile: string;
  /** Twitch refuses every login of the bot, whatever the token (a suspended account). */
  refuseEveryLogin: boolean;
  /** Called with each token the chat server is asked to accept, before it answers. */
  onLogin: ((token: string) => void) | null;
  /** A new token Twitch (the fake) issued, as a token file stores it. */
  issue(options?: { login?: string; scopes?: string[]; clientId?: string }): StoredTwitchToken;
  /** Saves it where the chat looks, as `chatskin twitch auth --bot` does (0600). */
  save(token: StoredTwitchToken): Promise<void>;
  /** The tokens the chat server got in PASS, in order (without "oauth:"). */
  passes(): string[];
  /** Every access and refresh token FakeHelix ever issued. */
  issuedSecrets(): string[];
  close(): Promise<void>;
}

export async function openBotTokenWorld(options: BotTokenWorldOptions = {}): Promise<BotTokenWorld> {
  const previousPort = process.env['TWURPLE_MOCK_API_PORT'];
  const helix = await FakeHelix.start(options.helix);
  helix.registerClient(CLIENT_ID, CLIENT_SECRET);
  helix.registerClient(OTHER_CLIENT_ID, 'othersecret');
  const bot = helix.addUser({ login: BOT });
  const dir = mkdtempSync(path.join(tmpdir(), 'chatskin-bot-token-'));
  const world: BotTokenWorld = {
    helix,
    irc: undefined as unknown as FakeTwitchIrc,
    bot,
    dir,
    tokenFile: path.join(dir, 'secrets', 'bot-token.json'),
    refuseEveryLogin: false,
    onLogin: null,
    issue(issue = {}) {
      const login = issue.login ?? BOT;
      const clientId = issue.clientId ?? CLIENT_ID;
      const user = helix.addUser({ login });
      const token = helix.issueUserToken({ clientId, userId: user.id, scopes: issue.scopes ?? BOT_SCOPES });
      return {
        version: 1, clientId, userId: user.id, login, accessToken: token.accessToken, refreshToken: token.refreshToken!,
        scope: token.scope, expiresIn: token.expiresIn, obtainmentTimestamp: token.obtainmentTimestamp,
      };
    },
    save: (token) => writeTokenFile(world.tokenFile, token),
    passes: () => world.irc.sent.filter((line) => line.message.command === 'PASS').map((line) => String(line.message.params[0]).replace(/^oauth:/, '')),
    issuedSecrets: () => helix.tokens.flatMap((token) => [token.accessToken, token.refreshToken ?? '']).filter((secret) => secret !== ''),
    async close() {
      await world.irc.close();
      await helix.close();
      rmSync(dir, { recursive: true, force: true });
      if (previousPort === undefined) delete process.env['TWURPLE_MOCK_API_PORT'];
      else process.env['TWURPLE_MOCK_API_PORT'] = previousPort;
    },
  };
  world.irc = await FakeTwitchIrc.start({
    ...options.irc,
    acceptToken: (token, login) => {
      world.onLogin?.(token);
      return !world.refuseEveryLogin && helix.isLiveUserToken(token, login);
    },
  });
  return world;
}
