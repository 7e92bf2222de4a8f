import { expect } from 'chai';
import crypto from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../../gateway/db/open.ts';
import type { Database } from '../../../gateway/db/database.ts';
import { createMemoryLimiter } from '../../../gateway/limits/memory-limiter.ts';
import { createSqlUsageStore } from '../../../gateway/limits/usage-store.ts';
import { createUsageBuffer, withWriteBehind } from '../../../gateway/limits/write-behind-limiter.ts';
import { createLimiter } from '../../../gateway/limits/create-limiter.ts';
import { fakeClock, memoryUsageStore, silentLogger } from './helpers.ts';

const r = { keyId: 'k', orgId: 'org-1', rpmLimit: 10_000, monthlyQuota: 1_000_000 };
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function withDatabases(): Promise<Array<{ name: string; open: () => Promise<{ db: Database; done: () => Promise<void> }> }>> {
  const out: Array<{ name: string; open: () => Promise<{ db: Database; done: () => Promise<void> }> }> = [
    { name: 'pglite', open: async () => { const db = await openDatabase({ databaseUrl: null, dataDir: null }); return { db, done: () => db.close() }; } },
  ];
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 1000 });
  try {
    await admin.connect();
    await admin.end();
    out.push({
      name: 'postgres',
      open: async () => {
        const name = `limits_${crypto.randomBytes(5).toString('hex')}`;
        const a = new pg.Client({ connectionString: PG_ADMIN_URL });
        await a.connect();
        await a.query(`CREATE DATABASE ${name}`);
        const url = new URL(PG_ADMIN_URL);
        url.pathname = `/${name}`;
        const db = await openDatabase({ databaseUrl: url.toString(), dataDir: null });
        return {
          db,
          done: async () => {
            await db.close();
            await a.query(`DROP DATABASE ${name} WITH (FORCE)`);
            await a.end();
          },
        };
      },
    });
  } catch {
    if (process.env.CI === 'true' || process.env.DATABASE_URL) throw new Error(`PostgreSQL unreachable at ${PG_ADMIN_URL}`);
    console.warn(`    (no PostgreSQL at ${PG_ADMIN_URL}: write-behind runs on PGlite only)`);
  }
  return out;
}

describe('write-behind of monthly counts', () => {
  it('flushes admitted counts to the SQL usage store within the interval, in one batch (PGlite and PostgreSQL)', async () => {
    for (const backend of await withDatabases()) {
      const { db, done } = await backend.open();
      try {
        await db.query('INSERT INTO organizations (id, name) VALUES ($1,$2), ($3,$4)', ['org-1', 'One', 'org-2', 'Two']);
        const store = createSqlUsageStore(db);
        let batches = 0;
        const counting = { ...store, addUsage: async (d: Parameters<typeof store.addUsage>[0]) => { batches++; return store.addUsage(d); } };
        const clock = fakeClock(Date.now());
        const buffer = createUsageBuffer({ usageStore: counting, flushMs: 100, logger: silentLogger });
        const l = withWriteBehind(createMemoryLimiter({ clock, usageSeed: buffer.seedStore }), buffer, clock);
        for (let i = 0; i < 30; i++) await l.consume(r);
        for (let i = 0; i < 12; i++) await l.consume({ ...r, orgId: 'org-2', monthlyQuota: 10 });
        const month = new Date(clock()).toISOString().slice(0, 7);
        await sleep(250);
        expect(await store.getUsage('org-1', month), backend.name).to.equal(30);
        expect(await store.getUsage('org-2', month), backend.name).to.equal(10); // refused ones not written
        expect(batches).to.equal(1);
        for (let i = 0; i < 5; i++) await l.consume(r);
        await l.close(); // flushes
        expect(await store.getUsage('org-1', month)).to.equal(35);
        // a restarted limiter starts from the stored count
        const l2 = createMemoryLimiter({ clock, usageSeed: store });
        expect(await l2.monthlyUsage('org-1')).to.equal(35);
      } finally {
        await done();
      }
    }
  });

  it('a failed flush keeps its deltas for the next try: never dropped, never counted twice', async () => {
    const store = memoryUsageStore();
    const lines: Array<Record<string, unknown>> = [];
    const { pino } = await import('pino');
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const clock = fakeClock();
    const buffer = createUsageBuffer({ usageStore: store, flushMs: 0, logger });
    const l = withWriteBehind(createMemoryLimiter({ clock }), buffer, clock);
    for (let i = 0; i < 10; i++) await l.consume(r);
    store.failWith = new Error('connection refused');
    let failed = false;
    await l.flush().catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(buffer.pending('org-1', '2031-05')).to.equal(10);
    expect(lines.some((x) => x.level === 50 && JSON.stringify(x.deltas).includes('"delta":10'))).to.equal(true);
    for (let i = 0; i < 3; i++) await l.consume(r);
    store.failWith = null;
    await l.flush();
    await l.flush();
    expect(store.data.get('org-1|2031-05')).to.equal(13);
    expect(buffer.failedFlushes).to.equal(1);
  });

  it('the seed view adds this process’s pending counts to the stored value', async () => {
    const store = memoryUsageStore();
    store.data.set('org-1|2031-05', 40);
    const buffer = createUsageBuffer({ usageStore: store, flushMs: 0, logger: silentLogger });
    buffer.add('org-1', '2031-05', 7);
    expect(await buffer.seedStore.getUsage('org-1', '2031-05')).to.equal(47);
    await buffer.flush();
    expect(await buffer.seedStore.getUsage('org-1', '2031-05')).to.equal(47);
  });

  it('createLimiter without Redis: in-process + write-behind, close() flushes', async () => {
    const store = memoryUsageStore();
    const clock = fakeClock();
    const l = createLimiter({ redisUrl: null, usageStore: store, flushMs: 60_000, logger: silentLogger, clock });
    expect(l.mode()).to.equal('memory');
    expect(await l.ready()).to.equal(true);
    for (let i = 0; i < 20; i++) await l.consume({ ...r, rpmLimit: 12 });
    expect(await l.monthlyUsage('org-1')).to.equal(12);
    expect(store.data.get('org-1|2031-05')).to.equal(undefined);
    await l.close();
    expect(store.data.get('org-1|2031-05')).to.equal(12);
  });
});
