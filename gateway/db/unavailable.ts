import { ServiceError } from '../../shared/errors.ts';

/** How long a client is asked to wait after the database could not be reached (a restart, a failover). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors: the server is not there, or went away mid-statement. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01–57P03 (shut down
 * by an administrator, crashed, not yet accepting), 53300 (too many connections), 57014 (a statement
 * cancelled by statement_timeout: DATABASE_QUERY_TIMEOUT_MS, a stalled or swamped server).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014)$/;
/** What node-postgres says when it gives up on its own (no code). */
const PG_CLIENT = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/**
 * A failure to reach PostgreSQL becomes the documented 503 `unavailable` with Retry-After (the cause
 * kept for the log); anything else (a constraint, a bug in a statement) is returned as it was, a 500.
 */
export function asDatabaseUnavailable(err: unknown): unknown {
  if (err instanceof ServiceError || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  const down = (typeof code === 'string' && (NETWORK.has(code) || UNAVAILABLE_STATES.test(code))) || PG_CLIENT.test(err.message);
  if (!down) return err;
  return new ServiceError('unavailable', undefined, { cause: err, headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } });
}
