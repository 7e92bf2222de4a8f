import type http from 'node:http';
import type net from 'node:net';
import { defaultMessage, HTTP_STATUS, type ErrorCode } from '../../shared/errors.ts';

// What Node's HTTP parser refuses (malformed requests, 431, Expect, CONNECT) answered as JSON, like
// every other refusal, instead of Node's bare text.

const REASONS: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

function rawError(status: number, code: ErrorCode, message: string): string {
  const body = JSON.stringify({ error: code, message });
  return (
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** What Node's parser refused, as `{status, code, message}` (undefined: just close the socket). */
export function describeClientError(err: NodeJS.ErrnoException): { status: number; code: ErrorCode; message: string } | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return { status: HTTP_STATUS.headers_too_large, code: 'headers_too_large', message: defaultMessage('headers_too_large') };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: HTTP_STATUS.request_timeout, code: 'request_timeout', message: defaultMessage('request_timeout') };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'bad_request', message: 'The request method is not valid' };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'bad_request', message: 'The request body framing is malformed' };
    default:
      return { status: 400, code: 'bad_request', message: 'The request is malformed' };
  }
}

/** How long answers to requests pipelined before a malformed one may take before the socket is closed without them. */
const PIPELINED_DRAIN_MS = 30_000;

type ServerSocket = net.Socket & { _httpMessage?: (http.ServerResponse & { headersSent?: boolean }) | null };

/**
 * Node answers parser errors (malformed request line, control bytes, bad chunking, headers over
 * maxHeaderSize) with a bare status line; this writes the service's JSON error instead. Requests
 * pipelined ahead of the malformed one are answered first, in order (Node's own handler drops
 * them, though their handlers ran and their calls were billed): the error goes out once the socket
 * has no response in flight.
 */
export function answerClientErrorsWithJson(server: http.Server, onError?: (err: Error, status: number) => void): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: ServerSocket) => {
    const d = describeClientError(err);
    if (!d || !socket.writable) {
      socket.destroy();
      return;
    }
    onError?.(err, d.status);
    const giveUp = setTimeout(() => socket.destroy(), PIPELINED_DRAIN_MS);
    giveUp.unref();
    const answerWhenIdle = () => {
      if (socket.destroyed) {
        clearTimeout(giveUp);
        return;
      }
      // the response being written, then (Node moves them up as each finishes) those queued behind it,
      // as long as their requests arrived whole: the one whose own bytes were malformed (a bad chunk
      // in its body) is answered with the error now, as Node would
      const inFlight = socket._httpMessage;
      if (inFlight && inFlight.req.complete) {
        // 'finish' or 'close', whichever comes first, looks again once: a second look after the 400
        // was written would find the socket ended and destroy it before the 400 left
        let looked = false;
        const lookAgain = () => {
          if (looked) return;
          looked = true;
          setImmediate(answerWhenIdle);
        };
        inFlight.once('finish', lookAgain);
        inFlight.once('close', lookAgain);
        return;
      }
      clearTimeout(giveUp);
      if (socket.writable && !inFlight?.headersSent) socket.end(rawError(d.status, d.code, d.message));
      else socket.destroy();
    };
    answerWhenIdle();
  });
}

/**
 * The rest of what Node's HTTP server answers by itself, answered as the service does:
 * - `Expect: 100-continue` no longer gets an automatic 100 before anything is checked: the request
 *   runs like any other and `continueIfExpected` (the body readers, after authentication) sends it;
 * - another expectation is ignored, as RFC 9110 allows, instead of a bare 417;
 * - CONNECT gets 405 JSON instead of a closed socket.
 * A request without Host is left to the app (`requireHost`), which answers JSON.
 */
export function answerProtocolEdgesWithJson(server: http.Server): void {
  const asRequest = (req: http.IncomingMessage, res: http.ServerResponse) => server.emit('request', req, res);
  server.on('checkContinue', asRequest);
  server.on('checkExpectation', asRequest);
  server.on('connect', (_req: http.IncomingMessage, socket: net.Socket) => {
    socket.on('error', () => undefined);
    socket.end(rawError(HTTP_STATUS.method_not_allowed, 'method_not_allowed', 'Method CONNECT is not allowed here'));
  });
}

/** Sends `100 Continue` to a client that waits for it before its body: called once the request may send one. */
export function continueIfExpected(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (/^\s*100-continue\s*$/i.test(req.headers.expect ?? '') && !res.headersSent) res.writeContinue();
}
