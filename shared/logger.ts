import { pino, type Logger } from 'pino';

export type { Logger };

/** One JSON line per event on stdout; the composition root makes one and passes it down. */
export function createLogger(name: string, level: string): Logger {
  return pino({
    name,
    level,
    base: { svc: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' },
  });
}
