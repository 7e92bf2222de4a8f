import { pino, type Logger } from 'pino';

export type { Logger };

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
    redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
