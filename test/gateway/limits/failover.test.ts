/**
 * Failover, reconciliation and Redis restarts against a throwaway redis-server of our own on a free
 * port (never the shared one): killed and restarted, or stopped (SIGSTOP) to make it hang.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { pino } from 'pino';
import { createLimiter } from '../../../gateway/limits/create-limiter.ts';
import { fakeClock, hasRedisServer, memoryUsageStore, randomPrefix, REDIS_REQUIRED, startRedis, stopRedis, tryRedis } from './helpers.ts';
import { freePort } from '../../support/ports.ts';

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
const r = { keyId: 'k', orgId: 'org-1', rpmLimit: 100_000, monthlyQuota: 1_000_000 };

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(20);
  }
}

describe('Redis failover, reconciliation and restarts (own throwaway redis-server)', function () {
  let port = 0;
  let server: ChildProcess | null = null;
  let lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });

  before(function () {
    if (!hasRedisServer()) {
      if (REDIS_REQUIRED) throw new Error('redis-server binary not found (required: REDIS_URL is set or CI=true)');
      console.warn('    (skipping: no redis-server binary to start a throwaway Redis)');
      this.skip();
    }
  });
  beforeEach(async () => {
    lines = [];
    port = await freePort();
    server = await startRedis(port);
  });
  afterEach(async () => {
    if (server) {
      if (server.exitCode === null) server.kill('SIGCONT');
      await stopRedis(server);
    }
  });

  it('a new Redis is seeded from the usage store', async () => {
    const store = memoryUsageStore();
    store.data.set('org-1|2031-05', 500);
    const l = createLimiter({ redisUrl: `redis://127.0.0.1:${port}`, usageStore: store, flushMs: 0, logger, clock: fakeClock(), keyPrefix: randomPrefix() });
    try {
      expect(await l.ready()).to.equal(true);
      const d = await l.consume({ ...r, monthlyQuota: 502 });
      expect(d.quota.used).to.equal(501);
      expect(l.mode()).to.equal('redis');
    } finally {
      await l.close();
    }
  });

  it('Redis killed: keeps serving in-process without hanging, logs once; restarted empty: re-seeded, nothing lost', async () => {
    const store = memoryUsageStore();
    const clock = fakeClock();
    const l = createLimiter({ redisUrl: `redis://127.0.0.1:${port}`, usageStore: store, flushMs: 50, logger, clock, keyPrefix: randomPrefix(), probeMs: 50, commandTimeoutMs: 100 });
    try {
      expect(await l.ready()).to.equal(true);
      for (let i = 0; i < 20; i++) expect((await l.consume(r)).allowed).to.equal(true);
      await stopRedis(server!);
      let slowest = 0;
      for (let i = 0; i < 30; i++) {
        clock.advance(100);
        const t0 = Date.now();
        expect((await l.consume(r)).allowed).to.equal(true);
        slowest = Math.max(slowest, Date.now() - t0);
      }
      expect(l.mode()).to.equal('fallback');
      expect(slowest).to.be.below(300);
      expect(await l.monthlyUsage('org-1')).to.equal(50);
      expect(lines.filter((x) => String(x.msg).includes('Redis unreachable'))).to.have.length(1);
      // the in-process quota is enforced too
      let refused = 0;
      for (let i = 0; i < 10; i++) if (!(await l.consume({ ...r, monthlyQuota: 55 })).allowed) refused++;
      expect(refused).to.equal(5);

      server = await startRedis(port); // a fresh, empty Redis
      await until(() => l.mode() === 'redis');
      expect(lines.filter((x) => String(x.msg).includes('Redis is back'))).to.have.length(1);
      // month counter re-seeded from the store + this process's pending counts: 55, nothing lost
      const d = await l.consume(r);
      expect(d.quota.used).to.equal(56);
      expect(l.mode()).to.equal('redis');
    } finally {
      await l.close();
    }
    expect(store.data.get('org-1|2031-05')).to.equal(56);
  });

  it('Redis hanging (SIGSTOP): fails over after the command timeout; back (SIGCONT): outage counts added with INCRBY', async () => {
    const store = memoryUsageStore();
    const clock = fakeClock();
    const prefix = randomPrefix();
    const l = createLimiter({ redisUrl: `redis://127.0.0.1:${port}`, usageStore: store, flushMs: 50, logger, clock, keyPrefix: prefix, probeMs: 50, commandTimeoutMs: 100 });
    try {
      expect(await l.ready()).to.equal(true);
      for (let i = 0; i < 10; i++) await l.consume(r);
      server!.kill('SIGSTOP');
      const t0 = Date.now();
      for (let i = 0; i < 25; i++) {
        clock.advance(100);
        expect((await l.consume(r)).allowed).to.equal(true);
      }
      expect(Date.now() - t0).to.be.below(1000); // one command timeout, then straight in-process
      expect(l.mode()).to.equal('fallback');
      server!.kill('SIGCONT');
      await until(() => l.mode() === 'redis');
      const reconciled = lines.find((x) => String(x.msg).includes('Redis is back'));
      expect(reconciled?.reconciledRequests).to.equal(25);
      const check = await tryRedis(`redis://127.0.0.1:${port}`);
      const inRedis = Number(await check!.get(`${prefix}{org-1}:q:2031-05`));
      check!.disconnect();
      // 10 + 25; the one request whose command timed out may also have run in Redis once it woke up
      expect(inRedis).to.be.within(35, 36);
    } finally {
      await l.close();
    }
    expect(store.data.get('org-1|2031-05')).to.equal(35);
  });

  it('a Redis restart during a steady run loses no more counts than the flush interval allows (here: none)', async () => {
    const store = memoryUsageStore();
    const clock = fakeClock();
    const flushMs = 50;
    const l = createLimiter({ redisUrl: `redis://127.0.0.1:${port}`, usageStore: store, flushMs, logger, clock, keyPrefix: randomPrefix(), probeMs: 50, commandTimeoutMs: 100 });
    let admitted = 0;
    try {
      expect(await l.ready()).to.equal(true);
      const step = async (i: number) => {
        clock.advance(10);
        if ((await l.consume(r)).allowed) admitted++;
        if (i % 20 === 0) await sleep(5);
      };
      let i = 0;
      for (; i < 100; i++) await step(i);
      void stopRedis(server!); // killed while requests keep coming
      for (; i < 150; i++) await step(i);
      server = await startRedis(port);
      while (l.mode() !== 'redis') await step(i++);
      const end = i + 50;
      for (; i < end; i++) await step(i);
      expect(admitted).to.equal(i);
      expect(lines.filter((x) => String(x.msg).includes('Redis unreachable'))).to.have.length(1);
      expect(lines.filter((x) => String(x.msg).includes('seeded in Redis'))).to.have.length(2); // at start, after restart
      const used = await l.monthlyUsage('org-1');
      expect(admitted - used).to.be.within(0, 0);
    } finally {
      await l.close();
    }
    expect(store.data.get('org-1|2031-05')).to.equal(admitted);
  });
});
