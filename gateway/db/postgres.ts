import pg from 'pg';
import type { Database, Queryable } from './database.ts';
import { asDatabaseUnavailable, onlyReads } from './unavailable.ts';

export interface PostgresTimeouts {
  /** Opening a connection (TCP, TLS, authentication) fails after this long: a stalled server is not waited for. */
  connectTimeoutMs?: number;
  /**
   * A statement is cancelled by the server after this long (`statement_timeout`: rolled back, so a
   * usage write that times out is not committed late and then written again), and the client stops
   * waiting a little later in case the server cannot even say so (a dead network, a stalled server:
   * that connection is then closed, not reused). What the service asks is milliseconds of work;
   * without a bound a stalled server would hold every request for as long as it stalls. Migrations
   * run without it.
   */
  queryTimeoutMs?: number;
}

/** The client gives up this long after the server's statement_timeout would have cancelled the statement. */
const CLIENT_TIMEOUT_MARGIN_MS = 2_000;

export function openPostgres(url: string, timeouts: PostgresTimeouts = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    idleTimeoutMillis: 30_000,
    // also how long a request waits for one of the pool's connections when all are busy
    connectionTimeoutMillis: timeouts.connectTimeoutMs ?? 0,
    statement_timeout: timeouts.queryTimeoutMs,
    query_timeout: timeouts.queryTimeoutMs === undefined ? undefined : timeouts.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});

  const query = async <R>(text: string, params?: readonly unknown[]): Promise<R[]> => {
    try {
      const res = await pool.query(text, params as unknown[] | undefined);
      return res.rows as R[];
    } catch (err) {
      throw asDatabaseUnavailable(err, { mayHaveApplied: !onlyReads(text) });
    }
  };

  return {
    kind: 'postgres',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      // a connection lost before COMMIT was sent rolls the transaction back; after, nobody knows
      const state = { committing: false };
      try {
        return await inTransaction(fn, state);
      } catch (err) {
        throw asDatabaseUnavailable(err, { mayHaveApplied: state.committing });
      }
    },
    async close() {
      await pool.end();
    },
  };

  async function inTransaction<T>(fn: (tx: Queryable) => Promise<T>, state: { committing: boolean }): Promise<T> {
    const client = await pool.connect();
    // The pool listens for errors only on idle clients. A checked-out client whose connection dies
    // (backend terminated, server restart) emits 'error' on itself: without a listener that is an
    // uncaught exception that ends the gateway. The pending query rejects with the same error,
    // which is what the caller handles.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    const tx: Queryable = {
      query: async <R>(text: string, params?: readonly unknown[]) =>
        (await client.query(text, params as unknown[] | undefined)).rows as R[],
    };
    try {
      await client.query('BEGIN');
      const out = await fn(tx);
      state.committing = true;
      await client.query('COMMIT');
      return out;
    } catch (err) {
      if (!broken) {
        await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
          broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
        });
      }
      throw err;
    } finally {
      client.off('error', onError);
      // A client that failed is destroyed rather than handed to the next caller mid-failure.
      client.release(broken);
    }
  }
}
