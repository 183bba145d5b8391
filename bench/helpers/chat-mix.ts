// A realistic, repeatable stream of Twitch chat for FakeTwitchIrc.floodPrivmsg: a few thousand
// chatters of whom a few talk a lot, colours, sub/VIP/bits badges, emotes, emoji, /me lines, and
// a small share of viewers' commands the host must route and turn down (role too low, cooling
// down, unknown). The same seed and options always give the same lines.
import type { ChatUser, FloodBuild, PrivmsgOptions } from '../../test/fakes/fake-twitch-irc.ts';
import { stableNumericId } from '../../test/fakes/stable-id.ts';

export interface ChatMixOptions {
  /** Distinct chatters. Default 3,000. */
  users?: number;
  /** Added to every chatter's number, so another round brings chatters the host has not seen. */
  userOffset?: number;
  /** Share of lines that are viewers' commands. Default 0.02. */
  commandShare?: number;
  /**
   * Chatters who keep repeating `!skin` (a per-user cooldown: one answer, then one notice per
   * window). Each costs up to 2 bot lines per 10 s against Twitch's 100 per 30 s. Default 0.
   */
  skinSpammers?: number;
  seed?: number;
}

export interface ChatMix {
  /** The line at `index` (the same every time for the same index). */
  line(index: number): FloodBuild;
  /** Logins of every chatter the mix may use. */
  readonly logins: readonly string[];
}

/** Global emote codes with their real Twitch ids. */
const EMOTES: Record<string, string> = {
  Kappa: '25', PogChamp: '305954156', LUL: '425618', Kreygasm: '41', BibleThump: '86',
  ResidentSleeper: '245', NotLikeThis: '58765', SeemsGood: '64138', HeyGuys: '30259', VoHiYo: '81274',
};
const EMOTE_CODES = Object.keys(EMOTES);

const PHRASES = [
  'lets go', 'that was clean', 'no way', 'gg', 'what just happened', 'hello chat', 'first time here, love the stream',
  'can you play the other map next?', 'the overlay looks great today', 'this song is a banger', 'ez clap',
  'chat is moving so fast nobody will see this', 'how long have you been streaming today?', 'W', 'L take',
  'he did not see that coming', 'poggers', 'true', 'is this ranked?', 'back from lunch, what did i miss',
  'clip it', 'my cat approves 🐱', 'love from Brazil 🇧🇷', 'that is actually insane 🔥🔥', 'rip', 'so close!!',
  'can we get a hype train going', 'wait what', 'hi mods', 'nice shot', 'that jump though', '😂😂😂',
];

const COLORS = ['#FF0000', '#1E90FF', '#9ACD32', '#FF69B4', '#8A2BE2', '#DAA520', '#00FF7F', '#FF4500', '#5F9EA0', '#B22222'];

/** Commands a viewer may type that the host turns down without a reply (role too low, unknown). */
const REFUSED_COMMANDS = [
  '!style bubble.width 500', '!style show bubble.width', '!theme neon', '!grant @someone neon', '!revoke @someone neon',
  '!lurk', '!uptime', '!discord',
];

/** mulberry32: small, fast, seeded. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A hash of the index, so line(i) does not depend on which lines were asked for before. */
function mix32(value: number): number {
  let h = value | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function chatter(number: number, pick: () => number): ChatUser {
  const login = `chatter_${number}`;
  const user: ChatUser = {
    login,
    displayName: pick() < 0.3 ? `Chatter_${number}` : login,
    userId: stableNumericId(login),
    color: pick() < 0.7 ? COLORS[Math.floor(pick() * COLORS.length)]! : '',
  };
  const roll = pick();
  if (roll < 0.3) user.subscriber = 1 + Math.floor(pick() * 40);
  if (roll > 0.98) user.vip = true;
  const badges: Record<string, string> = {};
  if (pick() < 0.1) badges['bits'] = String([1, 100, 1000, 5000][Math.floor(pick() * 4)]);
  if (pick() < 0.05) badges['premium'] = '1';
  if (Object.keys(badges).length > 0) user.badges = badges;
  return user;
}

export function createChatMix(options: ChatMixOptions = {}): ChatMix {
  const userCount = options.users ?? 3_000;
  const offset = options.userOffset ?? 0;
  const commandShare = options.commandShare ?? 0.02;
  const spammers = options.skinSpammers ?? 0;
  const seed = options.seed ?? 1;
  const pick = random(seed);
  const users = Array.from({ length: userCount }, (_, k) => chatter(offset + k, pick));

  const plainLine = (r: () => number): { text: string; options?: PrivmsgOptions } => {
    const words: string[] = [];
    const pieces = 1 + Math.floor(r() * 3);
    for (let p = 0; p < pieces; p++) {
      if (r() < 0.35) words.push(EMOTE_CODES[Math.floor(r() * EMOTE_CODES.length)]!);
      else words.push(PHRASES[Math.floor(r() * PHRASES.length)]!);
    }
    if (r() < 0.15) words.push(EMOTE_CODES[Math.floor(r() * EMOTE_CODES.length)]!);
    const text = words.join(' ');
    const hasEmote = words.some((word) => word in EMOTES);
    const action = r() < 0.02;
    if (!hasEmote && !action) return { text };
    return { text, options: { ...(hasEmote ? { emoteCodes: EMOTES } : {}), ...(action ? { action } : {}) } };
  };

  return {
    logins: users.map((user) => user.login),
    line(index) {
      const r = random(mix32(index ^ Math.imul(seed, 0x9e3779b1)));
      // Few chatters write most lines: the square skews picks toward the low numbers.
      const u = r();
      const user = users[Math.min(userCount - 1, Math.floor(u * u * userCount))]!;
      if (r() < commandShare) {
        const kind = r();
        if (spammers > 0 && kind < 0.2) return { user: users[Math.floor(r() * spammers)]!, text: '!skin neon' };
        // !skins has a 3 s global cooldown: a crowd asking draws one answer and one notice per window.
        if (kind < 0.5) return { user, text: '!skins' };
        return { user, text: REFUSED_COMMANDS[Math.floor(r() * REFUSED_COMMANDS.length)]! };
      }
      return { user, ...plainLine(r) };
    },
  };
}
