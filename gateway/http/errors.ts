import type { ErrorRequestHandler, RequestHandler } from 'express';
import { MESSAGES, ServiceError, toServiceError } from '../../shared/errors.ts';

/**
 * The one place errors become HTTP answers: `{error, message}` only. ServiceErrors keep their public
 * message; client errors raised by Express or body parsing become 400/413; everything else is
 * logged with detail and answered with the generic 500.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let e: ServiceError;
  const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
  if (err instanceof ServiceError) {
    e = err;
  } else if (status === 404) {
    e = new ServiceError('not_found', MESSAGES.notFound);
  } else if (typeof status === 'number' && status === 413) {
    e = new ServiceError('payload_too_large');
  } else if (typeof status === 'number' && status >= 400 && status < 500) {
    // Malformed percent-encoding, bad JSON bodies and the like: the client's fault, never a 500.
    e = new ServiceError('bad_request', 'The request is malformed');
  } else {
    e = toServiceError(err);
  }
  if (e.code === 'internal') {
    req.log?.error({ err, code: e.code }, 'request failed');
  } else if (e.httpStatus >= 500) {
    // a documented 503 (a dependency down, the dashboard not built): an outage, with its detail, not a bug
    req.log?.warn({ err, code: e.code }, 'request failed');
  } else {
    req.log?.info({ code: e.code, reason: e.message }, 'request refused');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // a refusal is about this request at this moment (a key, a limit, a grant): no cache may keep it
  res.set('Cache-Control', 'no-store');
  if (e.headers) res.set(e.headers);
  res.status(e.httpStatus).json(e.toBody());
};

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new ServiceError('not_found', MESSAGES.notFound));
};

/** Long URLs are refused before routing (Node itself answers 431 only past maxHeaderSize). */
export function limitUrlLength(max: number): RequestHandler {
  return (req, _res, next) => {
    if (req.originalUrl.length > max) next(new ServiceError('bad_request', 'The request URL is too long'));
    else next();
  };
}

/**
 * A query string whose percent-encoding is broken (a `%` not followed by two hex digits, or bytes that
 * are not UTF-8) is refused like such a path: 400 "The request is malformed". Node's query parser would
 * otherwise keep `%zz` as it is and turn bad UTF-8 into U+FFFD, and a search or a plate would run on text
 * the client never sent.
 */
export const rejectMalformedQuery: RequestHandler = (req, _res, next) => {
  const at = req.originalUrl.indexOf('?');
  if (at < 0) return next();
  for (const part of req.originalUrl.slice(at + 1).split('&')) {
    if (!part.includes('%')) continue;
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      return next(new ServiceError('bad_request', 'The request is malformed'));
    }
  }
  next();
};
