// The built-in plugins' commands (skins, grants) as moderators and viewers type them on Twitch:
// the whole host with the real tmi.js against the fake Twitch chat, on a database seeded with the
// channel's skins once the host runs. The bot is a moderator (its replies go out unpaced).
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSeedYaml } from '../../src/service/seed-fixture.ts';
import { applySeed } from '../../src/service/seed.ts';
import { MOD, twitchHostForSuite } from './twitch-host.ts';
import type { ChatUser } from '../fakes/fake-twitch-irc.ts';

const FIXTURE = `
accounts:
  - login: alice
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true }
    skins:
      - { slug: cafe, name: "Caf\\u00e9 Noir", template: bubbles, availability: free, values: {} }
      - { slug: neon, name: Neon, template: bubbles, availability: free, values: {} }
      - { slug: vault, name: Vault, template: bubbles, availability: exclusive, values: {} }
`;

const BROADCASTER: ChatUser = { login: 'alice', broadcaster: true };

describe('the built-in plugins through the host (real tmi.js against the fake server)', () => {
  const world = twitchHostForSuite({
    dirPrefix: 'chatskin-plugin-commands-',
    botBadges: () => ({ moderator: '1' }),
    config: { plugins: { skins: {}, grants: {} } },
  });
  beforeAll(async () => {
    await applySeed(world.running.service, parseSeedYaml(FIXTURE));
  });
  /** Sends `text` as `user` and gives the bot's answer to them. */
  const ask = async (user: ChatUser, text: string): Promise<string> => {
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', user, text);
    return (await world.botSaid(new RegExp(`^@${user.login} `, 'i'), since)).text;
  };

  it('finds a skin by its name typed in another Unicode form: an accent as a separate mark, full-width letters', async () => {
    // "e" and U+0301 (combining acute) is the same text as "é"; a CJK keyboard types full-width letters.
    expect(await ask({ login: 'nfd_viewer' }, '!skin cafe\u0301 noir')).toBe('@nfd_viewer your messages now use Caf\u00e9 Noir.');
    expect(await ask({ login: 'wide_viewer' }, '!skin \uFF2E\uFF45\uFF4F\uFF4E')).toBe('@wide_viewer your messages now use Neon.');
    expect(await ask(MOD, '!grant @nfd_viewer cafe\u0301 noir')).toBe('@modguy granted Caf\u00e9 Noir to nfd_viewer.');
    expect(await ask(MOD, '!revoke @nfd_viewer \uFF23\uFF41\uFF46\uFF45\u0301 noir')).toBe('@modguy revoked Caf\u00e9 Noir from nfd_viewer.');
  });

  it('a moderator or the broadcaster granting themself in their first chat line is known: they are chatting', async () => {
    // The host registers chatters in batches, after their line is routed; the grant must not answer
    // "no account" for the chatter who typed it.
    expect(await ask(BROADCASTER, '!grant @alice vault')).toBe('@alice granted Vault to alice.');
    expect(await ask({ login: 'new_mod', mod: true }, '!grant @New_Mod vault')).toBe('@new_mod granted Vault to new_mod.');
    expect(await ask({ login: 'new_mod', mod: true }, '!revoke @new_mod vault')).toBe('@new_mod revoked Vault from new_mod.');
    expect(await ask({ login: 'rev_mod', mod: true }, '!revoke @rev_mod vault'))
      .toBe('@rev_mod rev_mod has no grant of "vault" to revoke (a purchase is never revoked).');
    // Someone else who has never chatted is still unknown.
    expect(await ask(MOD, '!grant @never_here vault')).toBe('@modguy never_here has no account on the overlay service yet.');
  });

  it('revokes from a viewer whose login is all digits even when another viewer has that number as user id', async () => {
    // GET /viewers/12345/skins reads "12345" as a user id first: it lists the other viewer's grants.
    const digits: ChatUser = { login: '12345', userId: '777001' };
    const numbered: ChatUser = { login: 'numbered_fan', userId: '12345' };
    expect(await ask(numbered, '!skin neon')).toBe('@numbered_fan your messages now use Neon.');
    expect(await ask(digits, '!skin neon')).toBe('@12345 your messages now use Neon.');
    expect(await ask(MOD, '!grant @12345 vault')).toBe('@modguy granted Vault to 12345.');
    expect(await ask(MOD, '!revoke @12345 vault')).toBe('@modguy revoked Vault from 12345.');
    expect(await ask(MOD, '!revoke @12345 vault')).toBe('@modguy 12345 has no grant of "vault" to revoke (a purchase is never revoked).');
  });
});
