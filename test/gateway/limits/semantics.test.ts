import { expect } from 'chai';
import type { LimitRequest } from '../../../gateway/limits/limiter.ts';
import { createMemoryLimiter } from '../../../gateway/limits/memory-limiter.ts';
import { createRedisLimiter } from '../../../gateway/limits/redis-limiter.ts';
import { fakeClock, forEachBackend, memoryUsageStore, randomPrefix, rng, silentLogger, tryRedis, deleteByPrefix } from './helpers.ts';

const req = (over: Partial<LimitRequest> = {}): LimitRequest => ({ keyId: 'k1', orgId: 'o1', rpmLimit: 12, monthlyQuota: 200, ...over });

forEachBackend('limiter semantics', (b) => {
  it('12/minute with 200/month: a burst of 50 admits exactly 12 and leaves 188 of the quota', async () => {
    const clock = fakeClock();
    const store = memoryUsageStore();
    const l = b.make({ clock, usageStore: store });
    const ds = [];
    for (let i = 0; i < 50; i++) ds.push(await l.consume(req()));
    expect(ds.filter((d) => d.allowed)).to.have.length(12);
    expect(ds.slice(12).every((d) => d.reason === 'rate_limited' && d.retryAfterSeconds! >= 1)).to.equal(true);
    expect(await l.monthlyUsage('o1')).to.equal(12);
    const last = ds[49]!;
    expect(last.quota.used).to.equal(12);
    expect(last.quota.remaining).to.equal(188);
    expect(last.rpm.remaining).to.equal(0);
  });

  it('a request refused by the minute limit moves no counter', async () => {
    const clock = fakeClock();
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    for (let i = 0; i < 5; i++) await l.consume(req({ rpmLimit: 5 }));
    for (let i = 0; i < 20; i++) expect((await l.consume(req({ rpmLimit: 5 }))).reason).to.equal('rate_limited');
    expect(await l.monthlyUsage('o1')).to.equal(5);
    // The refused 20 did not enter the minute bucket: a full minute later exactly 5 pass again
    // (had they counted, the previous-minute weight would still block at 60 s).
    clock.advance(60_000);
    const next = [];
    for (let i = 0; i < 10; i++) next.push((await l.consume(req({ rpmLimit: 5 }))).allowed);
    // prev = 5 at weight 1.0 at the start of the minute: nothing passes yet ...
    expect(next.filter(Boolean)).to.have.length(0);
    clock.advance(59_999);
    // ... and one ms before the next minute, prev weighs 1/60000: 4 pass (5 × 1/60000 + 4 + 1 > 5 fails the 5th).
    let n = 0;
    for (let i = 0; i < 10; i++) if ((await l.consume(req({ rpmLimit: 5 }))).allowed) n++;
    expect(n).to.equal(4);
    expect(await l.monthlyUsage('o1')).to.equal(9);
  });

  it('a request refused by the quota moves no counter (and the minute bucket stays free)', async () => {
    const clock = fakeClock();
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    for (let i = 0; i < 3; i++) expect((await l.consume(req({ rpmLimit: 10, monthlyQuota: 3 })))).to.include({ allowed: true });
    for (let i = 0; i < 10; i++) {
      const d = await l.consume(req({ rpmLimit: 10, monthlyQuota: 3 }));
      expect(d.reason).to.equal('quota_exceeded');
      expect(d.quota.remaining).to.equal(0);
      expect(d.retryAfterSeconds).to.equal(d.quota.resetSeconds);
    }
    expect(await l.monthlyUsage('o1')).to.equal(3);
    // the minute bucket holds 3, not 13: with a bigger quota 7 more pass this minute
    let n = 0;
    for (let i = 0; i < 20; i++) if ((await l.consume(req({ rpmLimit: 10, monthlyQuota: 100 }))).allowed) n++;
    expect(n).to.equal(7);
  });

  it('when both refuse, the limit the client waits for names the answer: the quota, except in the month\'s last seconds', async () => {
    const clock = fakeClock();
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    const both = req({ rpmLimit: 3, monthlyQuota: 3 });
    for (let i = 0; i < 3; i++) expect(await l.consume(both)).to.include({ allowed: true });
    const d = await l.consume(both); // the minute and the month are both spent
    expect(d.reason).to.equal('quota_exceeded');
    expect(d.retryAfterSeconds).to.equal(d.quota.resetSeconds);
    expect(d.retryAfterSeconds).to.be.greaterThan(86_400);
    // 10 s before the month ends, the minute frees up later than the month: the minute names it
    const l2 = b.make({ clock, usageStore: memoryUsageStore() });
    clock.set(Date.UTC(2031, 5, 1) - 10_000);
    const k2 = req({ keyId: 'k2', orgId: 'o2', rpmLimit: 3, monthlyQuota: 3 });
    for (let i = 0; i < 3; i++) expect(await l2.consume(k2)).to.include({ allowed: true });
    const late = await l2.consume(k2);
    expect(late.reason).to.equal('rate_limited');
    expect(late.retryAfterSeconds).to.be.greaterThan(10);
  });

  it('200 parallel calls against a quota of 100 admit exactly 100', async () => {
    const clock = fakeClock();
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    const ds = await Promise.all(Array.from({ length: 200 }, (_, i) => l.consume(req({ keyId: `k${i % 7}`, rpmLimit: 10_000, monthlyQuota: 100 }))));
    expect(ds.filter((d) => d.allowed)).to.have.length(100);
    expect(ds.filter((d) => d.reason === 'quota_exceeded')).to.have.length(100);
    expect(await l.monthlyUsage('o1')).to.equal(100);
  });

  it('200 parallel calls against 100/minute admit exactly 100', async () => {
    const clock = fakeClock();
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    const ds = await Promise.all(Array.from({ length: 200 }, () => l.consume(req({ rpmLimit: 100, monthlyQuota: 1_000_000 }))));
    expect(ds.filter((d) => d.allowed)).to.have.length(100);
    expect(ds.filter((d) => d.reason === 'rate_limited')).to.have.length(100);
    expect(await l.monthlyUsage('o1')).to.equal(100);
  });

  it('keys have separate minute windows; the organisation shares one quota', async () => {
    const clock = fakeClock();
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    for (let i = 0; i < 10; i++) await l.consume(req({ keyId: 'a', rpmLimit: 3, monthlyQuota: 5 }));
    for (let i = 0; i < 10; i++) await l.consume(req({ keyId: 'b', rpmLimit: 3, monthlyQuota: 5 }));
    expect(await l.monthlyUsage('o1')).to.equal(5);
    expect(await l.monthlyUsage('o2')).to.equal(0);
  });

  it('usage resets at the UTC month change, and the old month stays readable', async () => {
    const clock = fakeClock(Date.UTC(2031, 0, 31, 23, 59, 50));
    const store = memoryUsageStore();
    const l = b.make({ clock, usageStore: store });
    for (let i = 0; i < 5; i++) expect((await l.consume(req({ rpmLimit: 100, monthlyQuota: 5 }))).allowed).to.equal(true);
    expect((await l.consume(req({ rpmLimit: 100, monthlyQuota: 5 }))).reason).to.equal('quota_exceeded');
    clock.set(Date.UTC(2031, 1, 1, 0, 0, 1));
    const d = await l.consume(req({ rpmLimit: 100, monthlyQuota: 5 }));
    expect(d.allowed).to.equal(true);
    expect(d.quota.used).to.equal(1);
    expect(await l.monthlyUsage('o1')).to.equal(1);
    expect(await l.monthlyUsage('o1', '2031-01')).to.equal(5);
  });

  it('after a restart the month count is seeded from the usage store', async () => {
    const clock = fakeClock();
    const store = memoryUsageStore();
    store.data.set('o1|2031-05', 150);
    const l = b.make({ clock, usageStore: store });
    let n = 0;
    for (let i = 0; i < 100; i++) if ((await l.consume(req({ rpmLimit: 1000, monthlyQuota: 200 }))).allowed) n++;
    expect(n).to.equal(50);
    expect(await l.monthlyUsage('o1')).to.equal(200);
    store.data.set('o1|2031-05', 190); // what write-behind had stored before the restart
    const l2 = await b.restart({ clock, usageStore: store });
    expect(await l2.monthlyUsage('o1')).to.equal(190);
    n = 0;
    for (let i = 0; i < 100; i++) if ((await l2.consume(req({ rpmLimit: 1000, monthlyQuota: 200 }))).allowed) n++;
    expect(n).to.equal(10);
  });

  it('decisions carry remaining, reset and a retry-after that works', async () => {
    const clock = fakeClock(Date.UTC(2031, 4, 10, 12, 0, 15));
    const l = b.make({ clock, usageStore: memoryUsageStore() });
    const d1 = await l.consume(req({ rpmLimit: 3, monthlyQuota: 10 }));
    expect(d1.rpm).to.deep.equal({ limit: 3, remaining: 2, resetSeconds: 45 });
    expect(d1.quota).to.include({ limit: 10, used: 1, remaining: 9 });
    await l.consume(req({ rpmLimit: 3, monthlyQuota: 10 }));
    await l.consume(req({ rpmLimit: 3, monthlyQuota: 10 }));
    const refused = await l.consume(req({ rpmLimit: 3, monthlyQuota: 10 }));
    expect(refused.reason).to.equal('rate_limited');
    // curr = 3 = limit: next minute, prev 3 must weigh ≤ 2: 20 s into it → 45 + 20 = 65 s.
    expect(refused.retryAfterSeconds).to.equal(65);
    clock.advance(64_000);
    expect((await l.consume(req({ rpmLimit: 3, monthlyQuota: 10 }))).allowed).to.equal(false);
    clock.advance(1_000);
    expect((await l.consume(req({ rpmLimit: 3, monthlyQuota: 10 }))).allowed).to.equal(true);
  });
});

describe('limiter semantics: memory and Redis decide identically', () => {
  it('a random sequence of 3000 calls over 20 minutes gets the same decisions from both', async function () {
    const redis = await tryRedis();
    if (!redis) {
      if (process.env.REDIS_URL || process.env.CI === 'true') throw new Error('Redis unreachable');
      console.warn('    (skipping: no Redis)');
      this.skip();
    }
    const prefix = randomPrefix();
    try {
      const clock = fakeClock();
      const store = memoryUsageStore();
      const mem = createMemoryLimiter({ clock, usageSeed: store });
      const red = createRedisLimiter({ redis: redis!, keyPrefix: prefix, clock, usageStore: store, logger: silentLogger });
      const rand = rng(7);
      for (let i = 0; i < 3000; i++) {
        clock.advance(Math.floor(rand() * 800));
        const r = req({ keyId: `k${Math.floor(rand() * 3)}`, rpmLimit: 7, monthlyQuota: 900 });
        const [a, c] = [await mem.consume(r), await red.consume(r)];
        expect(c, `call ${i}`).to.deep.equal(a);
      }
    } finally {
      await deleteByPrefix(redis!, prefix);
      redis!.disconnect();
    }
  });

  it('the in-process limiter holds only the current and previous minute of each key', async () => {
    const clock = fakeClock();
    const l = createMemoryLimiter({ clock });
    for (let i = 0; i < 1000; i++) await l.consume(req({ keyId: `k${i}` }));
    expect(l.size().keys).to.equal(1000);
    clock.advance(120_000);
    await l.consume(req({ keyId: 'other' }));
    expect(l.size().keys).to.equal(1);
  });
});
