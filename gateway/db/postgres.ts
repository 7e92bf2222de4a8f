import pg from 'pg';
import type { Database, Queryable } from './database.ts';

export function openPostgres(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});

  const query = async <R>(text: string, params?: readonly unknown[]): Promise<R[]> => {
    const res = await pool.query(text, params as unknown[] | undefined);
    return res.rows as R[];
  };

  return {
    kind: 'postgres',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const tx: Queryable = {
        query: async <R>(text: string, params?: readonly unknown[]) =>
          (await client.query(text, params as unknown[] | undefined)).rows as R[],
      };
      try {
        await client.query('BEGIN');
        const out = await fn(tx);
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
