/** Shared fixtures of the limiter suites: both backends, a fake clock, an in-memory usage store. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Clock, Limiter, UsageStore } from '../../../gateway/limits/limiter.ts';
import { createMemoryLimiter } from '../../../gateway/limits/memory-limiter.ts';
import { createRedisLimiter } from '../../../gateway/limits/redis-limiter.ts';
import { mulberry32 } from '../../../shared/seeded-random.ts';

export const silentLogger = pino({ level: 'silent' });

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Redis must be there (the suites fail instead of skipping) when REDIS_URL is set or CI=true. */
export const REDIS_REQUIRED = Boolean(process.env.REDIS_URL) || process.env.CI === 'true';

export interface FakeClock {
  (): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function fakeClock(start = Date.UTC(2031, 4, 10, 12, 0, 0)): FakeClock {
  let now = start;
  const c = (() => now) as FakeClock;
  c.set = (ms) => {
    now = ms;
  };
  c.advance = (ms) => {
    now += ms;
  };
  return c;
}

export interface MemoryUsageStore extends UsageStore {
  data: Map<string, number>;
  /** When set, addUsage/getUsage throw it. */
  failWith: Error | null;
  addCalls: number;
}

export function memoryUsageStore(): MemoryUsageStore {
  const store: MemoryUsageStore = {
    data: new Map(),
    failWith: null,
    addCalls: 0,
    async addUsage(deltas) {
      store.addCalls += 1;
      if (store.failWith) throw store.failWith;
      for (const d of deltas) store.data.set(`${d.orgId}|${d.month}`, (store.data.get(`${d.orgId}|${d.month}`) ?? 0) + d.delta);
    },
    async getUsage(orgId, month) {
      if (store.failWith) throw store.failWith;
      return store.data.get(`${orgId}|${month}`) ?? 0;
    },
  };
  return store;
}

/** Connects to Redis or returns null (after a short timeout). */
export async function tryRedis(url = REDIS_URL): Promise<Redis | null> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.ping();
    return r;
  } catch {
    r.disconnect();
    return null;
  }
}

/** Whether a redis-server binary is here to start a throwaway Redis (startRedis). */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/** A throwaway redis-server of a test's own on `port` (never the shared one), answering when this returns. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    const c = await tryRedis(`redis://127.0.0.1:${port}`);
    if (c) {
      c.disconnect();
      return p;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  p.kill('SIGKILL');
  throw new Error('throwaway redis-server did not start');
}

export async function stopRedis(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const exited = new Promise((res) => p.once('exit', res));
  p.kill('SIGKILL');
  await exited;
}

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) n += await redis.del(...keys);
  } while (cursor !== '0');
  return n;
}

export const randomPrefix = () => `test:limits:${crypto.randomBytes(6).toString('hex')}:`;

export interface BackendCtx {
  name: 'memory' | 'redis';
  /** A fresh limiter (for redis: a fresh key prefix unless one is given). */
  make(opts: { clock: Clock; usageStore: UsageStore; keyPrefix?: string }): Limiter;
  /** Simulates a restart: memory → a new limiter; redis → the prefix's keys deleted and a new limiter. */
  restart(opts: { clock: Clock; usageStore: UsageStore }): Promise<Limiter>;
  redis: Redis | null;
}

/**
 * Declares `fn` once per backend. The redis variant skips (with a message) when Redis is unreachable,
 * unless REDIS_URL is set or CI=true, where it fails.
 */
export function forEachBackend(title: string, fn: (ctx: BackendCtx) => void): void {
  describe(`${title} [memory]`, () => {
    fn({
      name: 'memory',
      redis: null,
      make: ({ clock, usageStore }) => createMemoryLimiter({ clock, usageSeed: usageStore }),
      restart: async ({ clock, usageStore }) => createMemoryLimiter({ clock, usageSeed: usageStore }),
    });
  });

  describe(`${title} [redis]`, function () {
    const prefixes: string[] = [];
    let lastPrefix = '';
    const ctx: BackendCtx = {
      name: 'redis',
      redis: null,
      make: ({ clock, usageStore, keyPrefix }) => {
        const p = keyPrefix ?? randomPrefix();
        prefixes.push(p);
        lastPrefix = p;
        return createRedisLimiter({ redis: ctx.redis!, keyPrefix: p, clock, usageStore, logger: silentLogger });
      },
      restart: async ({ clock, usageStore }) => {
        await deleteByPrefix(ctx.redis!, lastPrefix);
        return ctx.make({ clock, usageStore, keyPrefix: lastPrefix });
      },
    };
    before(async function () {
      ctx.redis = await tryRedis();
      if (!ctx.redis) {
        if (REDIS_REQUIRED) throw new Error(`Redis unreachable at ${REDIS_URL} (required: REDIS_URL is set or CI=true)`);
        console.warn(`    (skipping the redis variant: no Redis at ${REDIS_URL}; set REDIS_URL or CI=true to make this a failure)`);
        this.skip();
      }
    });
    after(async () => {
      if (ctx.redis) {
        for (const p of prefixes) await deleteByPrefix(ctx.redis, p);
        ctx.redis.disconnect();
      }
    });
    fn(ctx);
  });
}

export const rng = mulberry32;

/** Reference: an exact sliding log (admit iff fewer than `limit` admitted in the last 60 s). */
export function exactSlidingLog(limit: number, windowMs = 60_000) {
  const log: number[] = [];
  let head = 0;
  return (t: number): boolean => {
    while (head < log.length && log[head]! <= t - windowMs) head++;
    if (log.length - head < limit) {
      log.push(t);
      return true;
    }
    return false;
  };
}

/** Arrival times (ms offsets) over `minutes` at `perMinute` on average: Poisson or evenly spaced. */
export function arrivals(kind: 'poisson' | 'uniform', perMinute: number, minutes: number, seed: number): number[] {
  const out: number[] = [];
  const mean = 60_000 / perMinute;
  const rand = rng(seed);
  let t = 0;
  for (;;) {
    t += kind === 'poisson' ? -Math.log(1 - rand()) * mean : mean;
    if (t >= minutes * 60_000) return out;
    out.push(Math.floor(t));
  }
}

