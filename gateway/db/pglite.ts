import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.ts';

/** Embedded PostgreSQL; `dir` null keeps it in memory (tests). */
export async function openPglite(dir: string | null): Promise<Database> {
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const db = dir ? await PGlite.create(dir) : await PGlite.create();
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
