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
  if (e.code === 'internal' || e.httpStatus >= 500) {
    req.log?.error({ err, code: e.code }, 'request failed');
  } else {
    req.log?.info({ code: e.code, reason: e.message }, 'request refused');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
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
