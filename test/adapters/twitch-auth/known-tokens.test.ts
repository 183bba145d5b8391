// The access tokens the bot's and the broadcaster's token files are compared with (the ones this
// process already had) are the newest KNOWN_TOKENS_KEPT: one per refresh for as long as the host
// runs must not pile up. Through each one's real look at its token file: a token still among them
// is no news there; the oldest, forgotten, is taken as a new one.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBroadcasterAuth } from '../../../src/adapters/redemptions/broadcaster-auth.ts';
import { KNOWN_TOKENS_KEPT } from '../../../src/adapters/twitch-auth/known-tokens.ts';
import { writeTokenFile } from '../../../src/adapters/twitch-auth/token-file.ts';
import type { StoredTwitchToken } from '../../../src/adapters/twitch-auth/token-file.ts';
import { createBotTokenFile } from '../../../src/adapters/twitch-chat/bot-token-file.ts';
import { CHANNEL_POINTS_SCOPES } from '../../fakes/twurple-against-fakes.ts';
import { captureLogs } from '../../host/log-capture.ts';
import { BOT, CLIENT_ID, CLIENT_SECRET, openBotTokenWorld } from '../twitch-chat/bot-token-world.ts';
import type { BotTokenWorld } from '../twitch-chat/bot-token-world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(): Promise<BotTokenWorld> {
  const opened = await openBotTokenWorld();
  cleanups.push(() => opened.close());
  return opened;
}

describe('the tokens a token file is compared with', () => {
  it('the bot\'s: a token among the newest it had is no news in the file; an older one, forgotten, is taken as new', async () => {
    const twitch = await world();
    const source = createBotTokenFile({
      path: twitch.tokenFile, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, login: BOT, mockServerPort: twitch.helix.port,
    }, captureLogs().logger);
    cleanups.push(() => source.stop());
    // One more than are kept, each saved and taken in turn (as `chatskin twitch auth --bot` or a refresh would).
    const had: StoredTwitchToken[] = [];
    for (let index = 0; index <= KNOWN_TOKENS_KEPT; index++) {
      const token = twitch.issue();
      await twitch.save(token);
      expect(await source.current()).toBe(token.accessToken);
      had.push(token);
    }
    const newest = had.at(-1)!;

    await twitch.save(had[1]!);
    expect(await source.current()).toBe(newest.accessToken);

    await twitch.save(had[0]!);
    expect(await source.current()).toBe(had[0]!.accessToken);
  });

  it('the broadcaster\'s: a token among the newest it had is no news in the file; an older one, forgotten, is taken over', async () => {
    const twitch = await world();
    const tokenFile = path.join(twitch.dir, 'broadcaster.json');
    const issue = () => twitch.issue({ login: 'somechannel', scopes: CHANNEL_POINTS_SCOPES });
    const first = issue();
    await writeTokenFile(tokenFile, first);
    const auth = createBroadcasterAuth({
      clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenFile, token: first, logger: captureLogs().logger, tokenFileCheckMs: 3_600_000,
    });
    cleanups.push(async () => {
      auth.stop();
      await auth.flush();
    });
    // The token it loaded, then as many more as are kept, each saved by `chatskin twitch auth` and taken over.
    const had: StoredTwitchToken[] = [first];
    for (let index = 0; index < KNOWN_TOKENS_KEPT; index++) {
      const token = issue();
      await writeTokenFile(tokenFile, token);
      expect(await auth.checkTokenFile()).toBe(true);
      had.push(token);
    }
    expect(auth.status().reloads).toBe(KNOWN_TOKENS_KEPT);

    await writeTokenFile(tokenFile, had[1]!);
    expect(await auth.checkTokenFile()).toBe(false);

    await writeTokenFile(tokenFile, first);
    expect(await auth.checkTokenFile()).toBe(true);
    expect(auth.status().reloads).toBe(KNOWN_TOKENS_KEPT + 1);
  });
});
