import { ServiceError } from '../../shared/errors.ts';
import { expect } from 'chai';
import pg from 'pg';
import { openPostgres } from '../../gateway/db/postgres.ts';
import type { Database } from '../../gateway/db/database.ts';
import { REAL_DATABASE_URL, createScratchDatabase } from './support/backend.ts';

/**
 * A transaction whose connection dies while it is checked out of the pool: the server terminates the
 * backend in the middle of it. The transaction must reject (the caller's write-behind keeps its batch),
 * the process must not see an uncaught 'error' event, and the pool must hand out a working client next.
 * Needs the real server (DATABASE_URL; CI's second run).
 */
describe('postgres transaction whose connection is terminated', function () {
  this.timeout(30_000);
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let db: Database;
  let admin: pg.Client;

  before(async function () {
    if (!REAL_DATABASE_URL) this.skip();
    scratch = await createScratchDatabase();
    db = openPostgres(scratch!.url);
    admin = new pg.Client({ connectionString: REAL_DATABASE_URL });
    await admin.connect();
  });

  after(async () => {
    await db?.close();
    await admin?.end();
    await scratch?.drop();
  });

  it('rejects, raises nothing uncaught, and the next transaction works', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    // mocha's own handler would fail the run; ours records what would have crashed the gateway
    const mochaHandlers = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onUncaught);
    try {
      await db.query('CREATE TABLE t (n int)');
      const attempt = db.transaction(async (tx) => {
        const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await tx.query('INSERT INTO t VALUES (1)');
        await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
        // the socket's end reaches the client while this query waits, or the query finds it closed
        await tx.query('SELECT pg_sleep(5)');
      });
      let failure: unknown = null;
      await attempt.catch((err: unknown) => {
        failure = err;
      });
      expect(failure, 'the transaction rejects').to.be.instanceOf(Error);
      // a lost connection is the documented 503, with the driver's error kept for the log
      expect((failure as unknown as ServiceError).code, String(failure)).to.equal('unavailable');
      expect((failure as unknown as ServiceError).headers).to.deep.equal({ 'Retry-After': '5' });
      expect((failure as unknown as Error).cause).to.be.instanceOf(Error);
      // give any late 'error' event its turn
      await new Promise((r) => setTimeout(r, 200));
      expect(uncaught.map(String)).to.deep.equal([]);

      await db.transaction(async (tx) => tx.query('INSERT INTO t VALUES (2)'));
      const rows = await db.query<{ n: number }>('SELECT n FROM t ORDER BY n');
      expect(rows.map((r) => r.n), 'the terminated insert rolled back, the next one committed').to.deep.equal([2]);
    } finally {
      process.off('uncaughtException', onUncaught);
      for (const h of mochaHandlers) process.on('uncaughtException', h);
    }
  });
});

describe('postgres statements over DATABASE_QUERY_TIMEOUT_MS', function () {
  this.timeout(30_000);
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let db: Database;

  before(async function () {
    if (!REAL_DATABASE_URL) this.skip();
    scratch = await createScratchDatabase();
    db = openPostgres(scratch!.url, { connectTimeoutMs: 5_000, queryTimeoutMs: 300 });
  });
  after(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('are cancelled by the server and rolled back (not committed late), and the pool goes on', async () => {
    await db.query('CREATE TABLE t (n int)');
    let err: Error | null = null;
    // a write that takes longer than the timeout: the server cancels it, so it never lands
    await db.query('INSERT INTO t SELECT 1 FROM pg_sleep(1)').catch((e: Error) => (err = e));
    // a server too slow to answer is the documented 503 (Retry-After), its cause kept for the log
    expect((err as unknown as ServiceError).code).to.equal('unavailable');
    expect((err!.cause as Error).message).to.match(/statement timeout/);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await db.query('SELECT count(*)::int AS n FROM t')).to.deep.equal([{ n: 0 }]);
    // in a transaction too
    err = null;
    await db.transaction(async (tx) => tx.query('INSERT INTO t SELECT 1 FROM pg_sleep(1)')).catch((e: Error) => (err = e));
    expect((err as unknown as ServiceError).code).to.equal('unavailable');
    expect((err!.cause as Error).message).to.match(/statement timeout/);
    // a statement that is wrong is not an outage: it stays the error it was (a 500 at the gateway)
    err = null;
    await db.query('SELECT * FROM no_such_table').catch((e: Error) => (err = e));
    expect(err).to.not.be.instanceOf(ServiceError);
    expect(err!.message).to.match(/no_such_table/);
    expect(await db.query('SELECT count(*)::int AS n FROM t')).to.deep.equal([{ n: 0 }]);
  });
});
