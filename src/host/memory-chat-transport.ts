// A ChatTransport held in memory: lines "typed" with `receive`, lines the bot sent kept in
// `sent`. For tests of the host and of plugins (see docs/plugins.md), and as the simplest
// example of the interface.
import type { ChatRateLimits, ChatTags, ChatTransport, ChatTransportEvent, ChatTransportListener } from './chat-transport.ts';

export interface MemoryChatTransport extends ChatTransport {
  /** What the bot sent, in order. */
  readonly sent: { channel: string; text: string }[];
  /** Delivers an event to the host as if it came from the chat. */
  receive(event: ChatTransportEvent): void;
  /** A chat line from a chatter with these tags. */
  message(channel: string, text: string, tags: ChatTags): void;
  /** Makes `say` reject with this error until set back to null. */
  failSends: Error | null;
}

export interface MemoryChatTransportOptions {
  name?: string;
  channels: readonly string[];
  limits?: ChatRateLimits | null;
}

export function createMemoryChatTransport(options: MemoryChatTransportOptions): MemoryChatTransport {
  const listeners = new Set<ChatTransportListener>();
  const transport: MemoryChatTransport = {
    name: options.name ?? 'memory',
    channels: options.channels.map((channel) => channel.replace(/^#/, '').toLowerCase()),
    limits: options.limits ?? null,
    sent: [],
    failSends: null,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async say(channel, text) {
      if (transport.failSends) throw transport.failSends;
      transport.sent.push({ channel, text });
    },
    receive(event) {
      for (const listener of [...listeners]) listener(event);
    },
    message(channel, text, tags) {
      transport.receive({ type: 'message', channel, text, tags, self: false });
    },
  };
  return transport;
}
