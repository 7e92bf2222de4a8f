import type { RequestHandler } from 'express';
import onHeaders from 'on-headers';
import { ServiceError } from '../../shared/errors.ts';

// Per-request guards in front of every route: the Host header, no-store, unread bodies; and the
// client address the throttles key on.

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
