// docs/config.md documents every key the schema accepts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';

const DOCS = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');

/** Dotted paths of every leaf (lists count as leaves). */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, item]) => leafPaths(item, prefix === '' ? key : `${prefix}.${key}`));
}

describe('docs/config.md', () => {
  it('documents every key, Twitch and remote-service keys included', () => {
    // Every optional key given, so every key shows up in the parsed result.
    const full = parseConfig({
      twitch: { enabled: true, clientId: 'i', clientSecret: 's', bot: { login: 'b', token: 't' }, channels: ['c'] },
      service: {
        mode: 'remote', baseUrl: 'https://x.example/api/v1', apiKey: 'k', userAgent: 'ua/1', timeoutMs: 1, maxRetries: 1, maxRetryAfterMs: 1,
      },
      plugins: {},
    });
    // twitch.bot has a token or a token file, never both: the other form's keys.
    const withTokenFile = parseConfig({ twitch: { enabled: true, clientId: 'i', clientSecret: 's', bot: { login: 'b', tokenFile: 'f' } } });
    const keys = [
      ...new Set([...leafPaths({ ...full, plugins: undefined }), ...leafPaths({ twitch: withTokenFile.twitch })]),
    ].filter((path) => path !== 'plugins').concat('plugins', 'plugins.<name>.enabled');
    expect(keys.length).toBeGreaterThanOrEqual(40);
    const missing = keys.filter((key) => !DOCS.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });
});
