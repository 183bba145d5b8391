// chatskin chat say TEXT: hands a chat line to a running host's local chat (loopback only).
import type { CliOptions } from '../main.ts';
import { localBaseUrl } from '../runtime/public-url.ts';
import { loadCliConfig } from './cli-context.ts';
import { CliError } from './cli-error.ts';

const USAGE = 'chatskin chat say TEXT [--as LOGIN] [--role ROLE] [--url URL] [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action, ...words] = args;
  const text = words.join(' ').trim();
  if (action !== 'say' || text === '') throw new CliError(`Usage: ${USAGE}`);
  const base = typeof options.flags.url === 'string' ? options.flags.url.replace(/\/+$/, '') : localBaseUrl(loadCliConfig(options));
  const body = { text, login: options.flags.as, role: options.flags.role };
  let response: Response;
  try {
    response = await fetch(`${base}/local/chat/say`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'chatskin-cli/1' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new CliError(`No chatskin host answers at ${base}. Start one with \`npm start\`.`);
  }
  if (!response.ok) {
    const answer = (await response.json().catch(() => ({}))) as { message?: string };
    throw new CliError(answer.message ?? `The host answered ${response.status}.`);
  }
  process.stdout.write('sent\n');
}
