// Chat transport parity property test: the docs promise that a line from the local chat and one
// from Twitch go through the same plugin path (README, docs/chat.md: "Every chat line from either
// goes to the bot's commands and to the channel's overlays"). fast-check makes short scripts of
// chat lines (the built-in plugins' commands with valid and invalid arguments, /me lines and plain
// text) said by chatters with a role; each script is played into two fresh hosts seeded alike: once
// typed into the local chat (the role as its line syntax says it: /mod, /vip, /sub, /broadcaster,
// /as NAME, docs/chat.md "Line syntax"), once by the fake Twitch IRC server to the real tmi.js (the
// role as Twitch's badges and tags say it). Time is a manual clock in both, never moved, so
// cooldowns match. After each script the bot's replies, the state read back through the plugins'
// client (the overlay's template values, the skins, each chatter's grants and pick) and the overlay's
// chat frames must be equal, up to the documented differences:
// - docs/chat.md "Line syntax": local chatters "have badges for their role, a name colour, a display
//   name (`alice` -> `Alice`) and a numeric user id that stays the same for a login (`9` followed
//   by 15 digits ...)": so the Twitch chatters here get that display name and colour, and user ids
//   are not compared (viewers are compared by login).
// - docs/chat.md "Local chat": the bot's replies are shown as `chatskin (bot)`, while on Twitch they
//   are the bot account's lines: the bot's overlay lines are compared by text only.
// - docs/chat.md "What it does": on Twitch "A repeat of the previous line within 30 s ends with a
//   space and the invisible U+034F"; the local chat has no such rule: that ending is taken off.
//   And the bot's lines are shown "once Twitch has accepted them", a round trip late, so the bot's
//   overlay lines are compared as a set, the chatters' in order.
// Local lines are typed (the terminal's syntax, in its equal spellings: role aliases, the role
// before or after /as, the login in capitals, `/as alice` for the broadcaster) or posted to
// POST /local/chat/say (the page and `chatskin chat say`: login and role apart). Twitch takes the spaces around a chatter's line off,
// so the fake is sent it trimmed, as the local chat trims its own. Lines are played one at a time,
// each once the bot is quiet: the host runs different chatters' commands side by side, so a burst
// may finish in any order on either chat.
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import type { RunningChatskin } from '../../src/runtime/start-chatskin.ts';
import { localDisplayNameOf, localUserColorOf } from '../../src/adapters/local-chat/local-chat-tags.ts';
import { parseSeedYaml } from '../../src/service/seed-fixture.ts';
import { applySeed } from '../../src/service/seed.ts';
import type { ChatMessageEvent } from '../../src/service/push/protocol.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import type { ChatUser } from '../fakes/fake-twitch-irc.ts';
import { ManualClock } from '../host/manual-clock.ts';
import { hostConfig } from './host-config.ts';
import { twitchHostConfig } from './twitch-host-config.ts';
import { watchDefaultOverlay } from './overlay-socket.ts';
import type { OverlaySocket } from './overlay-socket.ts';

const BOT = 'chatskinbot';
const CHANNEL = 'alice';
const FIXTURE = `
accounts:
  - login: alice
    premium: true
    overlays:
      - { name: Main, template: bubbles, default: true }
    skins:
      - { slug: neon, name: Neon, template: bubbles, availability: free, values: {} }
      - { slug: vault, name: Vault, template: bubbles, availability: exclusive, values: {} }
      - { slug: retired, name: Retired, template: bubbles, availability: exclusive, active: false, values: {} }
`;
const PLUGINS = {
  plugins: {
    style: { themes: { neon: { 'bubble.background-color': '#ff00ff', 'bubble.border-width': 2 }, plain: { 'bubble.background-color': null } } },
    skins: {},
    grants: {},
  },
};
const VIEWERS = ['ann', 'bo_b', 'mia'] as const;
const ROLES = ['viewer', 'subscriber', 'vip', 'moderator', 'broadcaster'] as const;
type Role = (typeof ROLES)[number];
/** Logins named in scripts: the chatters, the channel and one nobody has seen. */
const LOGINS = [...VIEWERS, CHANNEL] as const;

interface Line {
  login: string;
  role: Role;
  text: string;
  /** How the local chat gets it: typed (its terminal's syntax), or posted to POST /local/chat/say (the page, `chatskin chat say`). */
  posted?: boolean;
  /** Which of the local chat's equal spellings of the chatter and role (0 to 3): aliases, order, login case. */
  form?: number;
}

const skinWord = fc.constantFrom('neon', 'Neon', 'vault', 'retired', 'sparkles', '"Neon"', '7');
const viewerArg = fc.constantFrom('@ann', 'bo_b', '@MIA', '@alice', '@nobody_here', 'not/a/name');
const command: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('!style', '!style show', '!style show bubble.width', '!style bubble.width', '!style reset bubble.width',
    '!style reset', '!style bubble.colour #fff', '!style bubble.border-style wavy', '!style bubble.border-style dashed'),
  fc.integer({ min: -5, max: 20_000 }).map((n) => `!style bubble.width ${n}`),
  fc.constantFrom('#ff0000', 'red', 'nope', 'transparent').map((c) => `!style bubble.background-color ${c}`),
  fc.constantFrom('!theme', '!themes', '!theme neon', '!theme plain', '!theme sunset'),
  fc.constantFrom('!skins', '!myskins', '!skin', '!skin none', '!skin off'),
  skinWord.map((s) => `!skin ${s}`),
  fc.tuple(fc.constantFrom('!grant', '!revoke', '!grantskin'), viewerArg, fc.option(skinWord, { nil: undefined }))
    .map(([command, who, skin]) => (skin === undefined ? `${command} ${who}` : `${command} ${who} ${skin}`)),
  fc.constantFrom('hello chat', 'GG', '/me waves', '/me !skin neon', 'nice !skins', '@ann !skins', 'caf\u00e9 \u{1F469}\u200D\u{1F4BB}'),
);
/** The same lines as chat clients may send them: shouted, spaced out, with an invisible character. */
const text = fc.tuple(command, fc.constantFrom('plain', 'upper', 'spaced', 'invisible', 'lead'))
  .map(([t, how]) => {
    if (t.startsWith('/me ') || how === 'plain') return t;
    if (how === 'upper') return t.toUpperCase();
    if (how === 'spaced') return t.replaceAll(' ', '  ');
    if (how === 'lead') return ` ${t} `;
    return `${t} \u034F`;
  });
const line: fc.Arbitrary<Line> = fc.tuple(fc.constantFrom(...VIEWERS), fc.constantFrom(...ROLES), text, fc.boolean(), fc.nat(3))
  .map(([login, role, t, posted, form]) => ({ login: role === 'broadcaster' ? CHANNEL : login, role, text: t, posted, form }));

/** Role words of the terminal (docs/chat.md, Line syntax) and of POST /local/chat/say's `role` (chatskin chat say --role). */
const TYPED_ROLES: Record<Role, readonly string[]> = {
  viewer: ['', '/viewer ', '/everyone ', ''], subscriber: ['/sub ', '/subscriber ', '/sub ', '/SUB '],
  vip: ['/vip ', '/vip ', '/VIP ', '/vip '], moderator: ['/mod ', '/moderator ', '/mod ', '/Mod '],
  broadcaster: ['/broadcaster ', '/streamer ', '', '/broadcaster '],
};
const POSTED_ROLES: Record<Role, readonly (string | undefined)[]> = {
  viewer: ['viewer', 'everyone', undefined, 'viewer'], subscriber: ['subscriber', 'sub', 'sub', 'subscriber'],
  vip: ['vip', 'vip', 'vip', 'vip'], moderator: ['moderator', 'mod', 'mod', 'moderator'],
  broadcaster: ['broadcaster', 'streamer', 'broadcaster', 'broadcaster'],
};

/** Posts the line to the host's POST /local/chat/say, with the login and role apart (docs/chat.md, chatskin chat say). */
async function postLine(running: RunningChatskin, { login, role, text: t, form = 0 }: Line): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${running.port}/local/chat/say`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: t, login: form % 2 === 1 ? login.toUpperCase() : login, role: POSTED_ROLES[role][form] }),
  });
  expect(response.status, await response.text()).toBe(202);
}

/** The line as typed into the local chat (docs/chat.md, Line syntax). */
function localLine({ login, role, text: t, form = 0 }: Line): string {
  const prefix = TYPED_ROLES[role][form]!;
  // The channel's login always speaks as the broadcaster, so `/as alice` is the broadcaster too.
  if (role === 'broadcaster') return form === 2 ? `/as ${login} ${t}` : form === 3 ? `/as ${login.toUpperCase()} ${prefix}${t}` : `${prefix}${t}`;
  const as = `/as ${form % 2 === 1 ? login.toUpperCase() : login} `;
  return form >= 2 ? `${prefix}${as}${t}` : `${as}${prefix}${t}`;
}

/** The chatter as Twitch's tags say it, named and coloured as the local chat names them. */
function twitchUser({ login, role }: Line): ChatUser {
  return {
    login, displayName: localDisplayNameOf(login), color: localUserColorOf(login),
    broadcaster: role === 'broadcaster', mod: role === 'moderator', vip: role === 'vip',
    // The local chat's subscriber is one of 14 months (badge subscriber/12, badge-info 14).
    subscriber: role === 'subscriber' ? 14 : false,
  };
}

interface Side {
  running: RunningChatskin;
  overlay: OverlaySocket;
  replies(): string[];
  play(line: Line): Promise<void>;
  close(): Promise<void>;
}

async function seeded(running: RunningChatskin): Promise<OverlaySocket> {
  await applySeed(running.service, parseSeedYaml(FIXTURE));
  return watchDefaultOverlay(running);
}

async function localSide(): Promise<Side> {
  const config = hostConfig('chatskin-parity-local-', CHANNEL, { localChat: { enabled: true, stdin: false }, ...PLUGINS });
  const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null, stdout: { write: () => true }, clock: new ManualClock() });
  const replies: string[] = [];
  running.transports.local!.subscribe((event) => {
    if (event.type === 'message' && event.self) replies.push(event.text);
  });
  const overlay = await seeded(running);
  return {
    running, overlay, replies: () => replies,
    play: (l) => (l.posted === true ? postLine(running, l) : running.transports.local!.typeLine(localLine(l))),
    close: () => running.close(),
  };
}

async function twitchSide(): Promise<Side> {
  const clock = new ManualClock();
  // The bot is a moderator there, so its replies go out unpaced.
  const irc = await FakeTwitchIrc.start({ userBadges: (login): Record<string, string> => (login === BOT ? { moderator: '1' } : {}), now: () => clock.now() });
  const running = await startChatskin(twitchHostConfig(irc, 'chatskin-parity-twitch-', PLUGINS), { logger: pino({ level: 'silent' }), stdin: null, clock });
  await irc.waitForJoin(CHANNEL);
  const overlay = await seeded(running);
  return {
    running, overlay,
    // docs/chat.md: a repeat within 30 s ends with " \u034F" on Twitch.
    replies: () => irc.privmsgs.filter((m) => m.login === BOT).map((m) => m.text.replace(/ \u034F$/u, '')),
    play: async (l) => {
      // Twitch takes the spaces around a chatter's line off, as the local chat does a typed line's.
      const action = l.text.startsWith('/me ');
      irc.sendPrivmsg(`#${CHANNEL}`, twitchUser(l), (action ? l.text.slice(4) : l.text).trim(), { action });
    },
    close: async () => {
      await running.close();
      await irc.close();
    },
  };
}

/**
 * The overlay's chat lines: the chatters' whole and in order; the bot's by text (docs/chat.md: it
 * is `chatskin (bot)` locally) and sorted, since on Twitch they are shown "once Twitch has accepted
 * them" (docs/chat.md, What it does), a round trip after the chatters' lines that came meanwhile.
 */
function chatShown(side: Side): { chatters: unknown[]; bot: string[] } {
  const shown = side.overlay.frames.flatMap((frame): unknown[] => {
    if (frame.type !== 'chat' || frame.event.type !== 'message') return [];
    const event = frame.event as ChatMessageEvent;
    const fromBot = event.login === BOT || event.login === 'chatskin';
    if (fromBot) return [{ bot: event.text.replace(/ \u034F$/u, '') }];
    return [{
      login: event.login, displayName: event.displayName, color: event.color, text: event.text, emotes: event.emotes,
      badges: event.badges.map((b) => `${b.set}/${b.version}`),
    }];
  });
  return {
    chatters: shown.filter((s) => !Object.hasOwn(s as object, 'bot')),
    bot: shown.flatMap((s) => (Object.hasOwn(s as object, 'bot') ? [(s as { bot: string }).bot] : [])).sort(),
  };
}

async function stateOf(running: RunningChatskin): Promise<unknown> {
  const client = running.overlayClient;
  const template = await client.getTemplate();
  const skins = await client.listSkins();
  const viewers: Record<string, unknown> = {};
  for (const login of LOGINS) {
    const viewer = await running.service.findViewer(login);
    if (viewer === null) { viewers[login] = null; continue; }
    const grants = await client.listViewerSkins(login);
    const picked = await running.service.getPickedSkin(running.account.id, viewer.twitchUserId);
    viewers[login] = { login: viewer.twitchUsername, displayName: viewer.displayName, grants, picked: picked?.slug ?? null };
  }
  return { values: template.settings_values, skins, viewers };
}

/** Waits until the bot's replies and the overlay's frames stop changing for a while. */
async function settled(side: Side): Promise<void> {
  let last = '';
  let still = 0;
  for (let i = 0; i < 400 && still < 4; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = `${side.replies().length}/${side.overlay.frames.length}`;
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

/**
 * Plays the script one line at a time: each once it is on the overlay and the bot is quiet. The
 * host runs commands of different chatters side by side, so lines in a burst may finish in any
 * order on either chat; a chatter waiting for the answer is what the comparison is about. Then a
 * marker the broadcaster says, answered after everything else.
 */
async function playScript(side: Side, script: Line[]): Promise<void> {
  for (const l of script) {
    const shown = side.overlay.frames.length;
    await side.play(l);
    await side.overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.login === l.login, shown);
    await settled(side);
  }
  await side.play({ login: CHANNEL, role: 'broadcaster', text: '!style show bubble.gap' });
  await expect.poll(() => side.replies().some((r) => r.includes('bubble.gap is ')), { timeout: 10_000 }).toBe(true);
  await settled(side);
}

describe('the local chat and Twitch chat go through the same plugin path', () => {
  it('gives the same replies, state and overlay chat for any script', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), async (script) => {
        const [local, twitch] = await Promise.all([localSide(), twitchSide()]);
        try {
          await Promise.all([playScript(local, script), playScript(twitch, script)]);
          expect([...twitch.replies()].sort()).toEqual([...local.replies()].sort());
          expect(await stateOf(twitch.running)).toEqual(await stateOf(local.running));
          expect(chatShown(twitch)).toEqual(chatShown(local));
        } finally {
          local.overlay.socket.close();
          twitch.overlay.socket.close();
          await Promise.all([local.close(), twitch.close()]);
        }
      }),
      { numRuns: 12, endOnFailure: true },
    );
  }, 60_000);
});
