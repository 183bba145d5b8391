// Requests Node's HTTP parser gives up on before Fastify sees them: a request not whole within
// the deadline, headers over Node's size limit, or bytes that are not HTTP (a malformed
// Content-Length or request line). They are answered in the API's error shape, {"message"}
// (Fastify's default answers {"error","message","statusCode"}), and the connection is closed, as
// Node does: what follows on it cannot be read as a request.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

function answerOf(error: NodeJS.ErrnoException, requestTimeoutMs: number): { status: number; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, message: `Request Timeout: the request did not arrive whole within ${requestTimeoutMs / 1000} s.` };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: `Request Header Fields Too Large: the headers are over ${http.maxHeaderSize} bytes.` };
  }
  return { status: 400, message: 'Bad Request: the request could not be read as HTTP.' };
}

/** Fastify's `clientErrorHandler` for a server whose requests must arrive whole within `requestTimeoutMs`. */
export function createClientErrorHandler(requestTimeoutMs: number) {
  return function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
    // A client that hung up: nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, message } = answerOf(error, requestTimeoutMs);
    // Never the error itself: Node puts the raw request bytes on it (`rawPacket`), the
    // Authorization header and the path included, as a byte array no log scrubber could read.
    this.log.debug({ code: error.code, reason: (error as { reason?: unknown }).reason, status }, 'client error before a request could be read');
    if (socket.writable) {
      const body = JSON.stringify({ message });
      socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy(error);
  };
}
