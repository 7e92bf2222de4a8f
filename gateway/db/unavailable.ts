import { ServiceError, outage } from '../../shared/errors.ts';

/**
 * Failures after which the statement certainly did not take effect: nothing reached the server (it
 * refused the connection, was not there, was not accepting yet, had no connection slot left), or the
 * server cancelled the statement itself (57014, DATABASE_QUERY_TIMEOUT_MS: cancelled is rolled back).
 */
const NOT_APPLIED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', '08001', '08004', '57P03', '53300', '57014']);
const NOT_APPLIED_MESSAGES = /^timeout exceeded when trying to connect/;
/**
 * The connection was lost while a statement was on it (reset, terminated by an administrator or a
 * crash, pg's own read timeout): a read or an uncommitted transaction is simply lost, but a write or a
 * COMMIT may or may not have landed. Not the rest of class 08: 08P01 is a statement we built wrong.
 */
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', '08000', '08003', '08006', '57P01', '57P02']);
const LOST_MESSAGES = /^(Connection terminated|Query read timeout|Client has encountered a connection error)/;

/**
 * A failure to reach PostgreSQL becomes the documented 503 `unavailable` with Retry-After (the cause
 * kept for the log), which clients may retry. `mayHaveApplied`: the call was a write, or a COMMIT was
 * sent; a lost connection then leaves its outcome unknown, and a retry could apply it twice, so that
 * stays the error it was (a 500). Anything else (a constraint, a wrong statement) is returned as it was.
 */
export function asDatabaseUnavailable(err: unknown, { mayHaveApplied }: { mayHaveApplied: boolean }): unknown {
  if (err instanceof ServiceError || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  const is = (codes: Set<string>, messages: RegExp) => (typeof code === 'string' && codes.has(code)) || messages.test(err.message);
  const down = is(NOT_APPLIED_CODES, NOT_APPLIED_MESSAGES) || (!mayHaveApplied && is(LOST_CODES, LOST_MESSAGES));
  if (!down) return err;
  return outage(err);
}

/** A statement that only reads (no data-modifying CTE): losing its connection loses nothing. */
export function onlyReads(sql: string): boolean {
  return /^\s*(SELECT|WITH|SHOW)\b/i.test(sql) && !/\b(INSERT|UPDATE|DELETE|MERGE)\b/i.test(sql);
}
