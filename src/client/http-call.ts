// One call of the HTTP client as it travels: the request it sends, the answer an attempt of it
// got, and an attempt that got none. Every other part of the client speaks in these.
import type { IncomingHttpHeaders } from 'node:http';
import type { Endpoint } from './base-url.ts';
import type { OverlayStyleError } from './overlay-style-error.ts';

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface Call {
  method: Method;
  /** Path below the base URL, query included, already encoded. */
  path: string;
  /** JSON text, for writes. */
  body?: string;
  /** Whether the call may be sent again after a failure it may already have been processed in. */
  idempotent: boolean;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** An earlier attempt of the call may have been carried out, its answer lost: this one answers a repeat. */
  afterLostAnswer?: boolean;
}

/** An attempt that produced no answer, and whether the request may have reached the service. */
export class AttemptFailure {
  readonly error: OverlayStyleError;
  readonly maybeSent: boolean;
  readonly retryable: boolean;
  /** What held the call up, for the retry's log line (the attempt knows it best). */
  readonly reason: string;
  constructor(error: OverlayStyleError, maybeSent: boolean, retryable: boolean, reason: string) {
    this.error = error;
    this.maybeSent = maybeSent;
    this.retryable = retryable;
    this.reason = reason;
  }
}

/** The base URL as one text, as messages and log lines name the service: `http://host:port/api/v1`. */
export function endpointUrl(endpoint: Endpoint): string {
  return `${endpoint.origin}${endpoint.basePath}`;
}

/** The call as messages and log lines name it: `GET http://host:port/api/v1/template`. */
export function describeCall(endpoint: Endpoint, call: Call): string {
  return `${call.method} ${endpointUrl(endpoint)}${call.path}`;
}

/** The first value of a response header. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
