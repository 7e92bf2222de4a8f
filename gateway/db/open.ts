import path from 'node:path';
import type { Database } from './database.ts';
import { openPostgres, type PostgresTimeouts } from './postgres.ts';
import { openPglite } from './pglite.ts';
import { migrate } from './migrate.ts';

/**
 * DATABASE_URL set: a PostgreSQL server; else embedded PGlite in DATA_DIR/pg. Migrations applied (on
 * PostgreSQL through a connection of their own without the query timeout: an index built on a big
 * catalog may take longer than any request should).
 */
export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string | null; timeouts?: PostgresTimeouts }): Promise<Database> {
  if (opts.databaseUrl) {
    const migrations = openPostgres(opts.databaseUrl, { connectTimeoutMs: opts.timeouts?.connectTimeoutMs });
    try {
      await migrate(migrations);
    } finally {
      await migrations.close().catch(() => {});
    }
    return openPostgres(opts.databaseUrl, opts.timeouts);
  }
  const db = await openPglite(opts.dataDir ? path.join(opts.dataDir, 'pg') : null);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
