import crypto from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';

/**
 * Which storage the suite runs on: the embedded defaults (PGlite + in-process limiter), or the real
 * servers when DATABASE_URL / REDIS_URL are set (CI runs the suite once each way). Each gateway under
 * test gets its own fresh database on the real server, dropped afterwards.
 */
export const REAL_DATABASE_URL = process.env.DATABASE_URL || null;
export const REAL_REDIS_URL = process.env.REDIS_URL || null;

export function backendLabel(): string {
  return `${REAL_DATABASE_URL ? 'postgres' : 'pglite'} + ${REAL_REDIS_URL ? 'redis' : 'in-process limiter'}`;
}

export async function createScratchDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  if (!REAL_DATABASE_URL) return null;
  const name = `vis_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: REAL_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(REAL_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: REAL_DATABASE_URL! });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A Redis client for tests that inspect or disturb the real server. */
export function testRedis(): Redis | null {
  return REAL_REDIS_URL ? new Redis(REAL_REDIS_URL, { maxRetriesPerRequest: 1 }) : null;
}
