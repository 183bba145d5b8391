// chatskin chat say TEXT: hands a chat line to a running host's local chat (loopback only).
import type { CliOptions } from '../main.ts';
import { LOCAL_ROLE_WORDS, roleOfWord } from '../adapters/local-chat/local-chat-chatter.ts';
import { configuredLocalBaseUrl, localBaseUrl } from '../runtime/public-url.ts';
import { configFileInUse, loadCliConfig } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { printAnswer } from './print.ts';

const USAGE = 'chatskin chat say TEXT [--as LOGIN] [--role ROLE] [--url URL] [--config FILE]';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [action, ...words] = args;
  const text = words.join(' ').trim();
  if (action !== 'say' || text === '') throw new CliError(`Usage: ${USAGE}`);
  const role = options.flags.role;
  if (typeof role === 'string' && roleOfWord(role) === null) {
    throw new CliError(`--role ${JSON.stringify(role)} is not a role: use one of ${Object.keys(LOCAL_ROLE_WORDS).join(', ')}.`);
  }
  const base = typeof options.flags.url === 'string' ? givenAddress(options.flags.url) : listeningAddress(options);
  const body = { text, login: options.flags.as, role };
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
  if (response.status === 404) {
    // Fastify's own "Route POST:/local/chat/say not found" told the streamer nothing.
    throw new CliError(`${base} has no local chat to send to (404): the chatskin there runs with localChat.enabled: false`
      + ' (set it to true and restart that chatskin), or what answers there is not chatskin.');
  }
  if (!response.ok) {
    const answer = (await response.json().catch(() => ({}))) as { message?: string };
    throw new CliError(answer.message ?? `The host answered ${response.status}.`);
  }
  await printAnswer('sent\n', 'The line was sent');
}

/**
 * --url as an http(s) address. Anything else failed in fetch, which said 'No chatskin host answers
 * at 127.0.0.1:4477' for an address pasted without its http://, as if the host were down. Its
 * origin only: the local chat is at the host's root (no proxy may stand in between), and a line
 * `start` printed, pasted whole (`Chat: .../local/chat/say`, `API: .../api/v1`), was a 404 said to
 * mean the local chat was off.
 */
function givenAddress(url: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    const meant = url.includes('://') ? 'http://127.0.0.1:PORT' : `http://${url}`;
    throw new CliError(`--url ${JSON.stringify(url)} is not an http:// address: give the address chatskin start printed, e.g. --url ${meant}.`);
  }
  return new URL(url).origin;
}

/** The host's listening address from the config; refused with http.port 0, whose port only the running host knows. */
function listeningAddress(options: CliOptions): string {
  const config = loadCliConfig(options);
  const base = configuredLocalBaseUrl(config);
  if (base === undefined) {
    const example = `${localBaseUrl(config, 0).replace(/:0$/, '')}:PORT`;
    throw new CliError(`http.port is 0 in ${configFileInUse(options)}, so the running host picked a free port only it knows:`
      + ` pass its address with --url ${example} (PORT as it printed at start), or set http.port to a fixed port.`);
  }
  return base;
}
