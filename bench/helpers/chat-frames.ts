// Chat lines rendered ahead of time into WebSocket frames, byte for byte what
// FakeTwitchIrc.floodPrivmsg sends (tags, prefix, /me body, 200 lines a frame), so a measured
// flood costs the fake only the socket writes. floodPrivmsg builds each line's tags as it sends
// (~15 us a line), which caps it at about the speed a bare tmi.js client reads: the fake, not the
// reader, would set the pace.
import type { FakeTwitchIrc, FloodBuild } from '../../test/fakes/fake-twitch-irc.ts';
import { formatIrcLine } from '../../test/fakes/irc-message.ts';

export interface RenderedChat {
  /** Each is several IRC lines joined with CRLF (sendRaw adds the last CRLF). */
  frames: string[];
  lines: number;
  bytes: number;
}

export function renderChatFrames(
  irc: FakeTwitchIrc,
  channel: string,
  count: number,
  build: (index: number) => FloodBuild,
  linesPerFrame = 200,
): RenderedChat {
  const name = channel.startsWith('#') ? channel : `#${channel}`;
  const frames: string[] = [];
  let bytes = 0;
  for (let start = 0; start < count; start += linesPerFrame) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(count, start + linesPerFrame); i++) {
      const { user, text, options } = build(i);
      const login = user.login.toLowerCase();
      const body = options?.action ? `\u0001ACTION ${text}\u0001` : text;
      lines.push(formatIrcLine({
        tags: irc.privmsgTags(name, user, text, options),
        prefix: `${login}!${login}@${login}.tmi.twitch.tv`,
        command: 'PRIVMSG',
        params: [name, body],
      }, true));
    }
    const frame = lines.join('\r\n');
    bytes += Buffer.byteLength(frame) + 2;
    frames.push(frame);
  }
  return { frames, lines: count, bytes };
}

/** Writes the frames to every client in the channel at once (the socket buffers what the reader has not taken). */
export function sendChatFrames(irc: FakeTwitchIrc, channel: string, chat: RenderedChat): void {
  for (const frame of chat.frames) irc.sendRaw(frame, channel);
}
