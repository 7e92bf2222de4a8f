import { pino, type Logger } from 'pino';

export type { Logger };

/** Request and response headers that carry a credential: API key, bearer/admin token, session, CSRF token. */
export const REDACTED_HEADERS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

/**
 * One JSON line per event on stdout (or `destination`: tests read the lines); the composition root
 * makes one and passes it down.
 */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { svc: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The access log's serializers keep no headers; these paths are the net for a request or response
    // logged whole (an error handler, a debug line): credentials and session cookies never reach a log.
    redact: { paths: REDACTED_HEADERS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
