import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the access log shows of a request's URL. Image URLs carry their token (a bearer credential for
 * that picture), so every path the router would send to the image route (`/images/:file`: routing
 * ignores case and a trailing slash) is logged as the route alone; the image route marks its requests
 * too. As a second line of defence, anything shaped like a signed token or an API key is masked
 * wherever it appears (query strings included).
 */
const IMAGE_ROUTE = /^\/+images(\/|$)/i;
const JWT_LIKE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const API_KEY_LIKE = /svc_live_[A-Za-z0-9_-]+/gi;
const ADMIN_TOKEN_LIKE = /adm_[A-Za-z0-9_-]{16,}/g;

export function urlForLog(req: IncomingMessage & { redactedUrl?: string; originalUrl?: string }): string {
  if (req.redactedUrl) return req.redactedUrl;
  const url = String(req.originalUrl ?? req.url ?? '');
  const q = url.indexOf('?');
  const pathname = q >= 0 ? url.slice(0, q) : url;
  if (IMAGE_ROUTE.test(pathname)) return '/images/…';
  return url.replace(JWT_LIKE, '…').replace(API_KEY_LIKE, 'svc_live_…').replace(ADMIN_TOKEN_LIKE, 'adm_…');
}

/**
 * The access log's own fields, given the raw request and response (pino-http with wrapSerializers
 * off: no full copy of the request's and the response's headers is built per request only to be
 * dropped). The request: its id, method and masked URL; the response: its status. Org and key are
 * bound by the /v1 gate and the image route.
 */
export const accessLogSerializers = {
  req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, url: urlForLog(req) }),
  res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
};
