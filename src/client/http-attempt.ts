// One attempt of a call over undici: the request with the client's headers, under its own
// timeout (from sending to the last byte of the answer), and the answer's body read up to
// maxResponseBytes. An attempt that gets no usable answer throws an AttemptFailure saying why
// and whether it may be tried again (call-errors.ts); any answer it gets, it returns.
//
// Every request sends `Authorization: Bearer <key>`, `Accept: application/json` (so the
// service answers errors as JSON, never with its 302 compatibility redirect), a descriptive
// `User-Agent` (the service's edge filter refuses generic ones) and, on writes,
// `Content-Type: application/json`.
import type { Dispatcher } from 'undici';
import type { Endpoint } from './base-url.ts';
import { connectionFailure, timeoutFailure, tooLongFailure } from './call-errors.ts';
import { AttemptFailure, describeCall } from './http-call.ts';
import type { Answer, Call } from './http-call.ts';

export interface AttemptOptions {
  endpoint: Endpoint;
  apiKey: string;
  userAgent: string;
  timeoutMs: number;
  maxResponseBytes: number;
  dispatcher: Dispatcher;
}

/** Sends one attempt of a call: resolves with whatever the service answered. */
export type Attempt = (call: Call) => Promise<Answer>;

export function createAttempt(options: AttemptOptions): Attempt {
  const { endpoint, userAgent, timeoutMs, maxResponseBytes, dispatcher } = options;
  const authorization = `Bearer ${options.apiKey}`;

  /**
   * The body as text, refused past maxResponseBytes: a service never sends that much (a template
   * is about 9 KB), so a longer answer is a wrong URL or a broken server, and is not kept in memory.
   */
  async function readCapped(call: Call, status: number, body: Dispatcher.ResponseData['body']): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxResponseBytes) {
        body.destroy();
        throw tooLongFailure(describeCall(endpoint, call), status, maxResponseBytes);
      }
      chunks.push(chunk);
    }
    // As undici's body.text() does: UTF-8, a leading BOM dropped.
    return new TextDecoder().decode(Buffer.concat(chunks, bytes));
  }

  return async function attempt(call: Call): Promise<Answer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const headers: Record<string, string> = {
        authorization,
        accept: 'application/json',
        'user-agent': userAgent,
      };
      if (call.body !== undefined) headers['content-type'] = 'application/json';
      const response = await dispatcher.request({
        origin: endpoint.origin,
        path: endpoint.basePath + call.path,
        method: call.method,
        headers,
        body: call.body ?? null,
        signal: controller.signal,
      });
      if (response.statusCode >= 300 && response.statusCode < 400) {
        // A redirect's body is of no use; it is drained so the connection can be reused.
        await response.body.dump();
        return { status: response.statusCode, headers: response.headers, text: '' };
      }
      return { status: response.statusCode, headers: response.headers, text: await readCapped(call, response.statusCode, response.body) };
    } catch (error) {
      if (error instanceof AttemptFailure) throw error;
      if (controller.signal.aborted) throw timeoutFailure(describeCall(endpoint, call), timeoutMs, error);
      throw connectionFailure(describeCall(endpoint, call), error);
    } finally {
      clearTimeout(timer);
    }
  };
}
