/**
 * The Redis limiter sends the requests made within one turn of the event loop as one script call per
 * organisation (redis-limiter.ts, `coalesce`). These check that a batch decides and counts exactly as
 * the same calls sent one by one would: in order, per key and per organisation, with month counters
 * seeded inside a batch, across the batch size bound, and that a failed call fails every request in it.
 */
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import type { LimitRequest } from '../../../gateway/limits/limiter.ts';
import { createRedisLimiter, MAX_BATCH, type RedisLimiter } from '../../../gateway/limits/redis-limiter.ts';
import type { ChildProcess } from 'node:child_process';
import { fakeClock, hasRedisServer, memoryUsageStore, randomPrefix, REDIS_REQUIRED, rng, silentLogger, startRedis, stopRedis, tryRedis, type FakeClock, type MemoryUsageStore } from './helpers.ts';
import { freePort } from '../../support/ports.ts';

const req = (over: Partial<LimitRequest> = {}): LimitRequest => ({ keyId: 'k1', orgId: 'o1', rpmLimit: 12, monthlyQuota: 200, ...over });

// A throwaway redis-server of this suite's own: the script calls are counted with MONITOR, which on
// the shared server also streams every other suite's commands, and ioredis throws on a monitor line
// still in flight when its connection closes (a CI run failed so).
describe('Redis limiter: requests of one turn share one script call (own throwaway redis-server)', function () {
  let redis: Redis | null = null;
  let server: ChildProcess | null = null;
  /** Each limiter's key prefix, in the order made. */
  const prefixes: string[] = [];

  before(async function () {
    if (!hasRedisServer()) {
      if (REDIS_REQUIRED) throw new Error('redis-server binary not found (required: REDIS_URL is set or CI=true)');
      console.warn('    (skipped: no redis-server binary to start a throwaway Redis)');
      this.skip();
    }
    const port = await freePort();
    server = await startRedis(port);
    redis = await tryRedis(`redis://127.0.0.1:${port}`);
  });
  after(async () => {
    redis?.disconnect();
    if (server) await stopRedis(server);
  });

  const make = (clock: FakeClock, store: MemoryUsageStore, coalesce: boolean): RedisLimiter => {
    const keyPrefix = randomPrefix();
    prefixes.push(keyPrefix);
    return createRedisLimiter({ redis: redis!, keyPrefix, clock, usageStore: store, logger: silentLogger, coalesce });
  };

  /**
   * Counts the script calls (EVALSHA, or EVAL the first time a script is loaded) that name a key under
   * `keyPrefix` (other clients of the same Redis are not counted).
   */
  const countScriptCalls = async <T>(keyPrefix: string, fn: () => Promise<T>): Promise<{ result: T; calls: number }> => {
    const monitor = await redis!.monitor();
    let calls = 0;
    monitor.on('monitor', (_time: string, args: string[]) => {
      const cmd = args[0]?.toLowerCase();
      if ((cmd === 'evalsha' || cmd === 'eval') && args.some((a) => a.startsWith(keyPrefix))) calls += 1;
    });
    try {
      const result = await fn();
      await redis!.ping(); // the monitor has seen everything sent before this
      await new Promise((r) => setTimeout(r, 50));
      return { result, calls };
    } finally {
      monitor.disconnect();
    }
  };

  it('a random mix of keys and organisations, sent together, gets the same decisions as one by one', async () => {
    const clockA = fakeClock();
    const clockB = fakeClock();
    const storeA = memoryUsageStore();
    const storeB = memoryUsageStore();
    storeA.data.set('o2|2031-05', 95);
    storeB.data.set('o2|2031-05', 95);
    const batched = make(clockA, storeA, true);
    const single = make(clockB, storeB, false);
    const r = rng(7);
    for (let step = 0; step < 30; step++) {
      const reqs = Array.from({ length: 1 + Math.floor(r() * 90) }, () =>
        req({ orgId: r() < 0.5 ? 'o1' : 'o2', keyId: `k${Math.floor(r() * 3)}`, rpmLimit: 20, monthlyQuota: 120 }),
      );
      // one turn: every call made before any answer arrives
      const a = await Promise.all(reqs.map((q) => batched.consume(q)));
      const b: Awaited<ReturnType<RedisLimiter['consume']>>[] = [];
      for (const q of reqs) b.push(await single.consume(q));
      expect(a).to.deep.equal(b, `step ${step}`);
      const dt = Math.floor(r() * 9_000);
      clockA.advance(dt);
      clockB.advance(dt);
    }
    expect(await batched.monthlyUsage('o1')).to.equal(await single.monthlyUsage('o1'));
    expect(await batched.monthlyUsage('o2')).to.equal(120);
  });

  it('one script call per organisation and turn, and at most MAX_BATCH requests in a call', async () => {
    const clock = fakeClock();
    const store = memoryUsageStore();
    const l = make(clock, store, true);
    await l.consume(req()); // seeds o1's month counter (two script calls and a SET)
    await l.consume(req({ orgId: 'o2' }));
    const n = MAX_BATCH + 6;
    const { result, calls } = await countScriptCalls(prefixes.at(-1)!, () =>
      Promise.all([
        ...Array.from({ length: n }, (_, i) => l.consume(req({ keyId: `k${i % 4}`, rpmLimit: 1000, monthlyQuota: 1000 }))),
        ...Array.from({ length: 5 }, () => l.consume(req({ orgId: 'o2', rpmLimit: 1000, monthlyQuota: 1000 }))),
      ]),
    );
    expect(result.every((d) => d.allowed)).to.equal(true);
    expect(result.slice(0, n).map((d) => d.quota.used)).to.deep.equal(Array.from({ length: n }, (_, i) => i + 2));
    expect(calls).to.equal(3); // o1: two calls (MAX_BATCH, then the rest); o2: one
    expect(await l.monthlyUsage('o1')).to.equal(n + 1);
    expect(await l.monthlyUsage('o2')).to.equal(6);
  });

  it('a month counter missing for a whole batch is seeded once and every request is counted once', async () => {
    const clock = fakeClock();
    const store = memoryUsageStore();
    store.data.set('o1|2031-05', 40);
    const l = make(clock, store, true);
    const ds = await Promise.all(Array.from({ length: 30 }, () => l.consume(req({ rpmLimit: 100, monthlyQuota: 50 }))));
    expect(ds.filter((d) => d.allowed)).to.have.length(10);
    expect(ds.filter((d) => d.reason === 'quota_exceeded')).to.have.length(20);
    expect(await l.monthlyUsage('o1')).to.equal(50);
  });

  it('when the call fails, every request of the batch fails with its error', async () => {
    const clock = fakeClock();
    const store = memoryUsageStore();
    const l = make(clock, store, true);
    await l.consume(req());
    // a script error for the whole call: a month counter that is not a number
    await redis!.set(l.monthKey('o1', '2031-05'), 'not a number');
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => l.consume(req())));
    expect(results.map((r) => r.status)).to.deep.equal(Array(5).fill('rejected'));
  });
});
