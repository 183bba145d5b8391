// `chatskin start` on a real terminal (a pty), typed into as a person does: the local chat reads
// the keys, and Ctrl-D and Ctrl-C do what docs/chat.md says.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { haveScript, startHostInTerminal } from './cli-process.ts';
import type { TerminalHost } from './cli-process.ts';

let host: TerminalHost | undefined;
afterEach(() => {
  host?.kill();
  host = undefined;
});

/** A config of the embedded defaults, but for a free port and a database of its own. */
function terminalConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chatskin-terminal-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `http: { port: 0 }\nstore: { path: ${JSON.stringify(join(dir, 'db.sqlite'))} }\nlog: { level: warn }\n`);
  return config;
}

describe.skipIf(!haveScript)('the local chat on a terminal', () => {
  it('says so when Ctrl-D ends its input, rather than echoing the lines typed after it and reading none', async () => {
    host = await startHostInTerminal(terminalConfig());
    let from = host.screen().length;
    host.type('/mod !style bubble.width 300\n');
    await host.waitFor('chatskin (bot): @You bubble.width is now 300.', from);

    from = host.screen().length;
    host.type('\x04');
    await host.waitFor('Local chat: the terminal\'s input ended (Ctrl-D)', from);
    expect(host.screen().slice(from)).toContain('lines typed here are no longer read; the chat page and `chatskin chat say` still work, and Ctrl-C stops chatskin.');

    host.type('\x03');
    expect(await host.exited).toBe(0);
  });
});
