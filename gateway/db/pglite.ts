import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.ts';

/**
 * PostgreSQL's shared buffers in the embedded database. PGlite keeps PostgreSQL's 128 MB, and its
 * shared memory is zeroed page by page at every open: 0.9 s of CPU an open and 9 s an initdb on a
 * 2-core VM, against 0.4 and 5 s at 32 MB (docs/performance.md, "The embedded database"). The
 * embedded mode's catalog and counters are tens of MB, and pages beyond the buffers are one read
 * away in the OS's page cache.
 */
export const EMBEDDED_SHARED_BUFFERS = '32MB';

/**
 * PGlite's options for a database with these shared buffers: a start parameter, not PGlite's
 * postgresqlconf option, which writes postgresql.conf over with only the lines given at every open.
 */
export function pgliteOptions(sharedBuffers: string): { startParams: string[] } {
  return { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`] };
}

/** Embedded PostgreSQL; `dir` null keeps it in memory (tests). */
export async function openPglite(dir: string | null): Promise<Database> {
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const options = pgliteOptions(EMBEDDED_SHARED_BUFFERS);
  const db = dir ? await PGlite.create(dir, options) : await PGlite.create(options);
  const query = async <R>(text: string, params?: readonly unknown[]): Promise<R[]> =>
    (await db.query<R>(text, params as unknown[] | undefined)).rows;

  return {
    kind: 'pglite',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return db.transaction(async (t) =>
        fn({ query: async <R>(text: string, params?: readonly unknown[]) => (await t.query<R>(text, params as unknown[] | undefined)).rows }),
      );
    },
    async close() {
      await db.close();
    },
  };
}
