import tmi from 'tmi.js';
import { createChatMix } from '/work/main/bench/helpers/chat-mix.ts';
import { FakeTwitchIrc } from '/work/main/test/fakes/fake-twitch-irc.ts';
import { formatIrcLine } from '/work/main/test/fakes/irc-message.ts';
import { chatLineOf } from '/work/main/src/adapters/twitch-chat/chat-line.ts';
import { tapParsedLines } from '/work/main/src/adapters/twitch-chat/parsed-line-tap.ts';
import { overlayChatEventOf } from '/work/main/src/adapters/chat-event-mapping.ts';
import { textTag } from '/work/main/src/host/chat-transport.ts';
import { createViewerRegistrationFilter } from '/work/main/src/adapters/viewer-registration-filter.ts';

const irc = await FakeTwitchIrc.start();
const mix = createChatMix();
const frames: string[] = [];
for (let f = 0; f < 150; f++) {
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) {
    const item = mix.line(f * 200 + i);
    const tags = irc.privmsgTags('#streamer', item.user, item.text, item.options);
    const body = item.options?.action ? `\u0001ACTION ${item.text}\u0001` : item.text;
    lines.push(formatIrcLine({ tags, prefix: `${item.user.login}!${item.user.login}@${item.user.login}.tmi.twitch.tv`, command: 'PRIVMSG', params: ['#streamer', body] }, true));
  }
  frames.push(lines.join('\r\n') + '\r\n');
}
await irc.close();
const LINES = 150 * 200;
const mode = process.argv[2];
const client = new tmi.Client({ options: { skipUpdatingEmotesets: true, skipMembership: true } });
let n = 0;
const seen = createViewerRegistrationFilter();
if (mode === 'bare') client.on('message', () => { n++; });
else {
  tapParsedLines(client, (m) => {
    if (m.command !== 'PRIVMSG') return false;
    const line = chatLineOf(m);
    if (line === null) return false;
    n++;
    if (mode === 'map') { overlayChatEventOf({ type: 'message' as const, channel: 'streamer', text: line.text, tags: line.tags, self: false }); }
    if (mode === 'json') { const shown = overlayChatEventOf({ type: 'message' as const, channel: 'streamer', text: line.text, tags: line.tags, self: false }); JSON.stringify(shown); }
    if (mode === 'filter') { const id = textTag(line.tags['user-id']);
      if (id !== null) seen.needsRegistering({ twitchUserId: id, login: line.tags.username as string, displayName: textTag(line.tags['display-name']) ?? undefined }); }
    if (mode === 'full') {
      const event = { type: 'message' as const, channel: 'streamer', text: line.text, tags: line.tags, self: false };
      const shown = overlayChatEventOf(event);
      if (shown) { const json = JSON.stringify(shown); Buffer.from(`{"type":"chat","version":${n},"event":${json}}`); }
      const id = textTag(line.tags['user-id']);
      if (id !== null) seen.needsRegistering({ twitchUserId: id, login: line.tags.username as string, displayName: textTag(line.tags['display-name']) ?? undefined });
    }
    return true;
  }, () => {});
}
const onMessage = (client as any)._onMessage.bind(client);
let best = Infinity; for (let r = 0; r < 15; r++) {
  const t = process.hrtime.bigint();
  for (const data of frames) onMessage({ data });
  const ns = Number(process.hrtime.bigint() - t) / LINES;
  if (r >= 3) best = Math.min(best, ns);
}
console.log(mode, best.toFixed(0), "ns/line min");
