// `chatskin twitch auth --bot`, the real CLI in a child process against the fake id.twitch.tv
// device flow: it saves the bot account's chat token to twitch.bot.tokenFile (0600), refuses a
// token of another account and a config without a token file, and prints no token.
import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/adapters/twitch-auth/token-file.ts';
import { BOT, BOT_SCOPES, CLIENT_ID, CLIENT_SECRET, openBotTokenWorld } from '../adapters/twitch-chat/bot-token-world.ts';
import type { BotTokenWorld } from '../adapters/twitch-chat/bot-token-world.ts';
import { runCli } from './cli-process.ts';
import { runTwitchAuthCli } from './twitch-auth-process.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(): Promise<BotTokenWorld> {
  const opened = await openBotTokenWorld();
  cleanups.push(() => opened.close());
  return opened;
}

function authBot(opened: BotTokenWorld, approveAs: string, bot: Record<string, unknown> = { login: BOT, tokenFile: opened.tokenFile }) {
  return runTwitchAuthCli({
    helix: opened.helix, dir: opened.dir, channel: 'somechannel', args: ['--bot'], approveAs,
    twitch: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, bot },
  });
}

describe('chatskin twitch auth --bot', () => {
  it('asks for chat:read and chat:edit, and saves the bot\'s token to twitch.bot.tokenFile (0600)', async () => {
    const opened = await world();
    const result = await authBot(opened, BOT);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Authorizing chatskin to chat as the bot account "chatskinbot".');
    expect(result.stdout).toContain('  chat:read: read the chat of the channels the bot joins (the commands, the overlay)');
    expect(result.stdout).toContain('  chat:edit: send the bot\'s replies');
    expect(result.stdout).toContain('Signed in to Twitch as "chatskinbot", open https://www.twitch.tv/activate?device-code=');
    expect(result.stdout).toContain(`Saved the token of "chatskinbot" to ${opened.tokenFile} (readable by you only).`);

    const saved = (await readTokenFile(opened.tokenFile))!;
    expect(saved).toMatchObject({ version: 1, clientId: CLIENT_ID, userId: opened.bot.id, login: BOT, scope: BOT_SCOPES });
    // Twitch's (the fake's) own token, which it refreshes and the chat server lets in.
    expect(opened.helix.isLiveUserToken(saved.accessToken, BOT)).toBe(true);
    expect(opened.helix.tokens.find((token) => token.accessToken === saved.accessToken)?.refreshToken).toBe(saved.refreshToken);
    expect(statSync(opened.tokenFile).mode & 0o777).toBe(0o600);
    for (const secret of [saved.accessToken, saved.refreshToken, CLIENT_SECRET]) {
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('refuses a token approved by another account than twitch.bot.login, and saves nothing', async () => {
    const opened = await world();
    const result = await authBot(opened, 'mychannel');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('chatskin: You approved the code as "mychannel", but the config\'s twitch.bot.login is "chatskinbot". '
      + 'The bot chats with its own account\'s token: sign in to Twitch as "chatskinbot" (a private browser window keeps you '
      + 'signed in as yourself elsewhere) and run the command again.\n');
    expect(existsSync(opened.tokenFile)).toBe(false);
  });

  it('needs twitch.bot.tokenFile: with a fixed token it says what to change, before asking Twitch anything', async () => {
    const opened = await world();
    const result = await authBot(opened, BOT, { login: BOT, token: 'oauth:fixedtoken' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('chatskin: twitch.bot.tokenFile is not set, so there is nowhere to save the bot\'s token. In the config, '
      + 'under twitch.bot, replace token with tokenFile: ./data/twitch-bot-token.json (see docs/chat.md), then run this again.\n');
    expect(result.stdout).toBe('');
    expect(opened.helix.calls).toEqual([]);
  });

  it('is in the help', async () => {
    const help = await runCli(['help', 'twitch']);
    expect(help.stdout).toContain('Usage: chatskin twitch auth [--bot] [--config FILE]');
    expect(help.stdout).toContain('twitch.bot.tokenFile');
    expect((await runCli(['--help'])).stdout).toContain('twitch auth --bot');
  });
});
