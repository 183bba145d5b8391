// The config of a whole chatskin for tests: a temp database, port 0 on loopback, silent logs,
// the local chat on (it reads no terminal unless `stdin` is given to startChatskin), no Twitch.
// `more` adds or replaces top-level sections as a config file would.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/index.ts';
import type { Config } from '../../src/config/index.ts';

export function hostConfig(dirPrefix: string, channel: string, more: Record<string, unknown> = {}): Config {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  return parseConfig({
    http: { host: '127.0.0.1', port: 0 },
    store: { path: join(dir, 'db.sqlite') },
    channel: { login: channel },
    log: { level: 'silent' },
    ...more,
  });
}
