import fs from 'node:fs';
import path from 'node:path';
import { untimed, type Phase } from '../start-phase.ts';
import type { Database } from './database.ts';
import { openPostgres, type PostgresTimeouts } from './postgres.ts';
import { openPglite } from './pglite.ts';
import { migrate } from './migrate.ts';

/**
 * DATABASE_URL set: a PostgreSQL server; else embedded PGlite in DATA_DIR/pg. Migrations applied (on
 * PostgreSQL through a connection of their own without the query timeout: an index built on a big
 * catalog may take longer than any request should).
 */
export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string | null; timeouts?: PostgresTimeouts; phase?: Phase }): Promise<Database> {
  const phase = opts.phase ?? untimed;
  if (opts.databaseUrl) {
    const migrations = openPostgres(opts.databaseUrl, { connectTimeoutMs: opts.timeouts?.connectTimeoutMs });
    try {
      await phase('migrated the database', () => migrate(migrations));
    } finally {
      await migrations.close().catch(() => {});
    }
    return openPostgres(opts.databaseUrl, opts.timeouts);
  }
  const dir = opts.dataDir ? path.join(opts.dataDir, 'pg') : null;
  // a first start runs PGlite's initdb, the longest wait of the start (seconds), a later one only opens it
  const created = dir === null || !fs.existsSync(path.join(dir, 'PG_VERSION'));
  const db = await phase(created ? 'created the embedded database (PGlite)' : 'opened the embedded database (PGlite)', () => openPglite(dir));
  try {
    await phase('migrated the embedded database', () => migrate(db));
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
