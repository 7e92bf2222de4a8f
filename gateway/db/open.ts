import path from 'node:path';
import type { Database } from './database.ts';
import { openPostgres } from './postgres.ts';
import { openPglite } from './pglite.ts';
import { migrate } from './migrate.ts';

/** DATABASE_URL set: a PostgreSQL server; else embedded PGlite in DATA_DIR/pg. Migrations applied. */
export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string | null }): Promise<Database> {
  const db = opts.databaseUrl
    ? openPostgres(opts.databaseUrl)
    : await openPglite(opts.dataDir ? path.join(opts.dataDir, 'pg') : null);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
