import { createLogger, type Logger } from '../../shared/logger.ts';

/** One parsed log line. */
export interface LogEntry {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

export interface LogCapture {
  /** Every line written, as written (one JSON line each). */
  readonly lines: string[];
  /** A real logger (shared/logger.ts, redaction included) writing into this capture. */
  logger(name?: string, level?: string): Logger;
  /** The lines parsed; `level` keeps those of one pino level (30 info, 40 warn, 50 error). */
  entries(level?: number): LogEntry[];
  /** All lines as one string (for "no secret anywhere in the log" checks and failure messages). */
  text(): string;
}

/** Log lines of a test in memory, through the loggers the services really use. */
export function captureLog(): LogCapture {
  const lines: string[] = [];
  const sink = { write: (s: string) => void lines.push(s) };
  return {
    lines,
    logger: (name = 'test', level = 'trace') => createLogger(name, level, sink),
    entries: (level) => lines.map((l) => JSON.parse(l) as LogEntry).filter((e) => level === undefined || e.level === level),
    text: () => lines.join(''),
  };
}
