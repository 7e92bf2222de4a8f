import type http from 'node:http';
import type net from 'node:net';
import type { RequestHandler, Router } from 'express';
import onHeaders from 'on-headers';
import { MESSAGES, ServiceError, defaultMessage, HTTP_STATUS, type ErrorCode } from '../../shared/errors.ts';

/**
 * Input hardening that sits in front of the routes: path parameters checked against their
 * documented alphabets before any query, 405 with Allow for a known path and a wrong method, JSON
 * answers for what Node's HTTP parser refuses, and a throttle on failed admin authentication.
 */

/** Slugs are lower-case a-z, 0-9 and single hyphens (docs/api.md); the lookup is case-insensitive. */
export const SLUG_RE = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;
/** The nine view ids and any other lower-case word with underscores (unknown ones are 404 later). */
export const VIEW_RE = /^[a-z][a-z_]{0,31}$/;
/** Ids are a short type prefix and base64url (`org_cc5nMg2hbsK6ZE-_`, `veh_…`). */
export const ID_RE = /^[a-z]{2,4}_[A-Za-z0-9_-]{1,64}$/;
/** `/{year}/{x}`: x is a variant slug or a view id. */
export const SEGMENT_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const MAX_SEGMENT = 100;

/**
 * Refuses a path parameter outside its alphabet with the generic 404, before the handler (and any
 * database query) runs. A NUL byte, a quote or a percent-encoded oddity never reaches SQL.
 */
export function validateParams(router: Router, params: Record<string, RegExp | { re: RegExp; message: string }>): void {
  for (const [name, rule] of Object.entries(params)) {
    // a message of the parameter's own where the docs give one (a year outside the slug alphabet: "Year not found")
    const { re, message } = rule instanceof RegExp ? { re: rule, message: MESSAGES.notFound } : rule;
    router.param(name, (_req, _res, next, value: unknown) => {
      const v = String(value);
      if (v.length === 0 || v.length > MAX_SEGMENT || !re.test(v)) next(new ServiceError('not_found', message));
      else next();
    });
  }
}

interface LayerLike {
  route?: { path: unknown; methods: Record<string, boolean> };
  slash?: boolean;
  /** A mounted router, or a wrapper of one that names it (`router`: app.ts skipV1Subpaths). */
  handle?: { stack?: LayerLike[]; router?: Router };
}

/** The route paths and methods of `router` and of the routers mounted at its root, by the router that owns each. */
function collectRoutes(owner: Router, stack: LayerLike[], out: Map<Router, Map<string, Set<string>>>): void {
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      const routes = out.get(owner) ?? new Map<string, Set<string>>();
      out.set(owner, routes);
      const set = routes.get(layer.route.path) ?? new Set<string>();
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') set.add(m.toUpperCase());
      routes.set(layer.route.path, set);
    } else if (layer.slash && layer.handle?.stack) {
      collectRoutes((layer.handle.router ?? layer.handle) as Router, layer.handle.stack, out); // a router mounted at this router's root
    }
  }
}

/**
 * For every route path known to `router` (and to routers mounted at its root), answers other
 * methods with 405 `method_not_allowed` and an `Allow` header; OPTIONS gets 204 with `Allow`.
 * Call it after the routes are registered and before the 404 handler.
 */
export function methodNotAllowed(router: Router): void {
  const owners = new Map<Router, Map<string, Set<string>>>();
  collectRoutes(router, (router as unknown as { stack: LayerLike[] }).stack, owners);
  // on the router that owns the route: past its end Express answers OPTIONS itself (200, a text body)
  // and a parent's handler would come too late
  for (const [owner, routes] of owners) for (const [p, methods] of routes) answerOtherMethods(owner, p, methods);
}

function answerOtherMethods(router: Router, p: string, methods: Set<string>): void {
  if (methods.has('GET')) methods.add('HEAD');
  const use = [...methods].sort().join(', ');
  // every method the resource answers (RFC 9110 §10.2.1), OPTIONS included, in the 405 as in the 204
  const allow = `${use}, OPTIONS`;
  router.all(p, (req, res, next) => {
    if (methods.has(req.method)) {
      next(); // e.g. a route that passed (next()) on its own: fall through to 404
      return;
    }
    if (req.method === 'OPTIONS') {
      res.set('Allow', allow).status(204).end();
      return;
    }
    next(new ServiceError('method_not_allowed', `Method ${req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } }));
  });
}

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

/** `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2): an IP literal, or a reg-name (which may be empty). */
const HOST_RE = /^(?:\[[0-9A-Za-z:.]+(?:%25[A-Za-z0-9._~-]+)?\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/; // an IPv6 zone id as RFC 6874 writes it

/**
 * RFC 9112 §3.2: a server answers 400 to an HTTP/1.1 request without Host, with more than one Host
 * line, or with a Host that is not a host (Node keeps the first of several and does not look at it).
 */
export const requireHost: RequestHandler = (req, _res, next) => {
  const host = req.headers.host;
  // counted on rawHeaders, not req.headersDistinct, which builds an object of every header per request
  let lines = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.length === 4 && req.rawHeaders[i]!.toLowerCase() === 'host') lines++;
  if (lines > 1) next(new ServiceError('bad_request', 'The request has more than one Host header'));
  else if (host !== undefined && !HOST_RE.test(host)) next(new ServiceError('bad_request', 'The request has an invalid Host header'));
  else if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && host === undefined) next(new ServiceError('bad_request', 'The request has no Host header'));
  else next();
};

/** Answers no cache may keep (set first: a route that may be cached sets its own). */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/** What Node may still read and throw away after an answer to keep a connection (Go's net/http allows 256 KB too). */
const DRAIN_LIMIT_BYTES = 256 * 1024;

/**
 * A large body the answer leaves unread closes the connection. Node would otherwise read and throw away
 * the rest of it after the answer, to keep the connection alive: a request refused without its body read
 * (a 401 before the admin body parser, any /v1 or image call, which never reads one) could make the
 * gateway read gigabytes for nothing. A small declared body is still drained (a 401 is often written
 * before the parser has reached body bytes that arrived with the head), so the connection is kept.
 */
export const closeUnreadBodies: RequestHandler = (req, res, next) => {
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const length = Number(req.headers['content-length'] ?? 0);
  if (chunked || length > DRAIN_LIMIT_BYTES) {
    onHeaders(res, () => {
      if (!req.complete) res.setHeader('Connection', 'close');
    });
  }
  next();
};

/** Adds the throttle around an admin-token check. */
export function clientAddress(req: { ip?: string; socket: { remoteAddress?: string } }): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export type { RequestHandler };
