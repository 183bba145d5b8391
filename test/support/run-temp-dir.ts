// Vitest global setup: every test run gets one temporary folder of its own, made the TMPDIR of
// the test workers and of every process they start (os.tmpdir() reads TMPDIR on each call), and
// removed when the run ends. Tests make temp folders freely (databases, config files, browser
// profiles, child hosts) and a killed child cannot clean up after itself; this way a run leaves
// nothing behind in the machine's /tmp however it ends.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // Short on purpose: Unix socket paths made under it must stay within 107 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'chatskin-test-'));
  // As open as /tmp itself (sticky, everyone may make files): some tests run the CLI as another user.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
