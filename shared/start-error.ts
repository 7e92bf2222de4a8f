import { ServiceError } from './errors.ts';

/**
 * One line for an error that stopped a process from starting, for the operator reading the console
 * (a database that refuses, a port in use, a directory that is not one): the message and the system
 * code, the inner errors of an AggregateError (a host name with several addresses), no stack. The
 * stack is for LOG_LEVEL=debug or trace (the caller's configured level: `showStack`).
 */
export function describeStartError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // a public answer wrapping the real failure (the database's 503): the operator wants the failure
  if (err instanceof ServiceError && err.cause instanceof Error) return describeStartError(err.cause);
  const e = err as Error & { code?: string; address?: string; port?: number; errors?: unknown[] };
  if (e.code === 'EADDRINUSE') return `address ${e.address ?? ''}${e.port !== undefined ? `:${e.port}` : ''} is already in use (EADDRINUSE)`;
  const inner = Array.isArray(e.errors) ? [...new Set(e.errors.map((x) => (x instanceof Error ? x.message : String(x))))] : [];
  const text = e.message || inner.join('; ') || e.name;
  const code = e.code && !text.includes(e.code) ? ` (${e.code})` : '';
  return `${text.replace(/\s+/g, ' ').trim()}${code}`;
}

/** Prints `<who> failed to start: <one line>` (and the stack at a debug or trace log level) and exits 1. */
export function exitOnStartError(who: string, err: unknown, logLevel: string): never {
  console.error(`${who} failed to start: ${describeStartError(err)}`);
  if ((logLevel === 'debug' || logLevel === 'trace') && err instanceof Error) console.error(err.stack);
  process.exit(1);
}
