// Which names name a secret, for the logger's scrubbing and the config's list of secret values.
// A key naming one of these (any case, anywhere in the name: `token`, `botToken`, `clientSecret`,
// `X-Api-Key`) holds a secret, unless it names where or how many (`tokenFile`, `tokens`).
const SECRET_KEY_WORD = /token|secret|passw(?:or)?d|api[-_]?key|authorization|cookie/i;
const NOT_A_SECRET_KEY = /(?:file|path|dir|url|seconds|ms|count)$|^tokens$/i;

/** What a secret is replaced with, in the logs and in what the CLI prints. */
export const REDACTED = '[redacted]';

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_WORD.test(key) && !NOT_A_SECRET_KEY.test(key);
}

/** `key: 'value'` (or `'key': "value"`, `key => \`value\``) in util.inspect's output. */
const INSPECTED_FIELD = /([A-Za-z_$][\w$-]*|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(: | => )('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/g;

/**
 * util.inspect's text of an object with the string of every secret-named field replaced: an
 * object thrown or dumped may hold a token (a plugin's settings, a client's credentials), and
 * what scrubs JSON lines sees `"apiToken":"..."`, not inspect's `apiToken: '...'`.
 */
export function redactInspectedFields(text: string): string {
  return text.replace(INSPECTED_FIELD, (field, key: string, separator: string) =>
    (isSecretKey(key.replace(/^['"]|['"]$/g, '')) ? `${key}${separator}'${REDACTED}'` : field));
}
