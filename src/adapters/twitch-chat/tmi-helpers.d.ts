// Types for the two tmi.js (1.8) modules chat-line.ts reads chat lines with; tmi.js's own types
// cover only its client.

declare module 'tmi.js/lib/utils.js' {
  const utils: {
    /** IRCv3 tag value unescaping as tmi.js does it (`\s` space, `\:` `;`, `\\` `\`, `\n` and `\r` nothing). */
    unescapeIRC(value: string): string;
    /** `[line, action]` for a `\u0001ACTION action\u0001` line, else null. */
    actionMessage(text: string): RegExpMatchArray | null;
  };
  export default utils;
}

declare module 'tmi.js/lib/parser.js' {
  const parser: {
    /** One IRC line parsed (tags as sent: a tag without a value is true), or null if malformed. */
    msg(line: string): { raw: string; tags: Record<string, string | true>; prefix: string | null; command: string | null; params: string[] } | null;
    /** Replaces `tags.badges` (the tag as sent) with its sets and versions, the text kept as `badges-raw`. */
    badges<Tags extends { badges?: unknown }>(tags: Tags): Tags & { badges: Record<string, string | null> | null; 'badges-raw'?: string | null };
  };
  export default parser;
}
