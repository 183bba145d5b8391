// Starts chat-consumer-process.ts in a child process and talks to it: wait until it is ready,
// arm a count of chat lines, wait for the report.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChatConsumerCommand, ChatConsumerReport, ChatConsumerRequest } from './chat-consumer-process.ts';

const SCRIPT = fileURLToPath(new URL('./chat-consumer-process.ts', import.meta.url));

export type CountedReport = Extract<ChatConsumerReport, { cmd: 'counted' }>;

export interface ChatConsumer {
  readonly kind: ChatConsumerRequest['kind'];
  /** The host's overlay push socket (null for bare tmi.js). */
  readonly overlaySocketUrl: string | null;
  /** Resolves once the child counts from now on (then send the lines), with the report to come. */
  arm(count: number): Promise<{ counted: Promise<CountedReport> }>;
  stop(): Promise<void>;
}

export interface ChatConsumerOptions {
  /** Extra node flags for the child, e.g. ['--cpu-prof', '--cpu-prof-dir=...']. */
  execArgv?: string[];
  /** The consumer script to run (another checkout's, for A/B runs); default this checkout's. */
  script?: string;
}

export async function startChatConsumer(request: ChatConsumerRequest, options: ChatConsumerOptions = {}): Promise<ChatConsumer> {
  const child: ChildProcess = fork(options.script ?? SCRIPT, [], {
    execArgv: ['--disable-warning=ExperimentalWarning', ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends ChatConsumerReport['cmd']>(cmd: T): Promise<Extract<ChatConsumerReport, { cmd: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: ChatConsumerReport) => {
        if (message.cmd !== cmd) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as Extract<ChatConsumerReport, { cmd: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`chat consumer (${request.kind}) exited with code ${code} while waiting for ${cmd}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const command = (message: ChatConsumerCommand) => child.send(message);

  const ready = next('ready');
  child.send(request);
  const { overlaySocketUrl } = await ready;
  return {
    kind: request.kind,
    overlaySocketUrl,
    async arm(count) {
      const armed = next('armed');
      const counted = next('counted');
      // Without a handler, a child that dies before the count would be an unhandled rejection.
      counted.catch(() => {});
      command({ cmd: 'arm', count });
      await armed;
      return { counted };
    },
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      command({ cmd: 'stop' });
    }),
  };
}
