/**
 * Redis limiter: one Lua script checks and counts both limits atomically (see window.ts for the
 * arithmetic, which the script repeats exactly, and docs/limits.md). Time comes from the injected clock
 * as an argument, never from Redis TIME. When the month counter is missing (a new month, or a Redis that
 * restarted or lost its data) the script says so and the client seeds it from the UsageStore
 * (SET NX) and runs the script again, so a new Redis is re-seeded from PostgreSQL.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/logger.ts';
import { utcMonth, type Clock, type LimitRequest, type Limiter, type UsageStore } from './limiter.ts';
import { buildDecision, elapsedInMinute, minuteIndex, msToNextUtcMonth, type CountedDecision } from './window.ts';

/** A minute bucket is read as "previous minute" until two minutes after it began. */
export const MINUTE_KEY_TTL_MS = 130_000;
/** Month counters live until the end of their UTC month plus this margin. */
export const MONTH_KEY_MARGIN_MS = 2 * 24 * 3600_000;

export const LIMIT_SCRIPT = `
-- KEYS[1] previous-minute bucket, KEYS[2] current-minute bucket, KEYS[3] month counter
-- ARGV[1] rpm limit, ARGV[2] monthly quota, ARGV[3] ms elapsed in the current minute, ARGV[4] minute TTL ms
local used = redis.call('GET', KEYS[3])
if not used then return {-1, 0, 0, 0, 0, 0} end
used = tonumber(used)
local prev = tonumber(redis.call('GET', KEYS[1]) or '0')
local curr = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
local quota = tonumber(ARGV[2])
local e = tonumber(ARGV[3])
local rpmOk = prev * (60000 - e) + (curr + 1) * 60000 <= limit * 60000
local quotaOk = used + 1 <= quota
if rpmOk and quotaOk then
  curr = redis.call('INCR', KEYS[2])
  if curr == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  used = redis.call('INCR', KEYS[3])
  return {1, prev, curr, used, 1, 1}
end
return {0, prev, curr, used, rpmOk and 1 or 0, quotaOk and 1 or 0}
`;

/** Adds outage deltas to month counters that exist; a missing counter will be seeded from the store. */
export const RECONCILE_SCRIPT = `
-- KEYS[i] month counter, ARGV[i] delta; returns the number of counters updated
local n = 0
for i, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then
    redis.call('INCRBY', k, ARGV[i])
    n = n + 1
  end
end
return n
`;

/**
 * The same step as LIMIT_SCRIPT for several requests of one organisation, one after the other, in one
 * call: what concurrent requests send within one turn of the event loop (see `coalesce`). Each request
 * is decided exactly as LIMIT_SCRIPT would decide it, in the order they were made, and the script is
 * atomic, so the counts are those of the same calls sent one by one.
 */
export const LIMIT_BATCH_SCRIPT = `
-- KEYS[3i-2..3i] request i's previous-minute bucket, current-minute bucket, month counter
-- ARGV[1] minute TTL ms; ARGV[3i-1..3i+1] request i's rpm limit, monthly quota, ms elapsed in its minute
-- returns six numbers per request, as LIMIT_SCRIPT
local out = {}
local ttl = ARGV[1]
for i = 0, #KEYS / 3 - 1 do
  local kPrev, kCurr, kMonth = KEYS[3 * i + 1], KEYS[3 * i + 2], KEYS[3 * i + 3]
  local used = redis.call('GET', kMonth)
  local o = 6 * i
  if not used then
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] = -1, 0, 0, 0, 0, 0
  else
    used = tonumber(used)
    local prev = tonumber(redis.call('GET', kPrev) or '0')
    local curr = tonumber(redis.call('GET', kCurr) or '0')
    local limit = tonumber(ARGV[3 * i + 2])
    local quota = tonumber(ARGV[3 * i + 3])
    local e = tonumber(ARGV[3 * i + 4])
    local rpmOk = prev * (60000 - e) + (curr + 1) * 60000 <= limit * 60000
    local quotaOk = used + 1 <= quota
    if rpmOk and quotaOk then
      curr = redis.call('INCR', kCurr)
      if curr == 1 then redis.call('PEXPIRE', kCurr, ttl) end
      used = redis.call('INCR', kMonth)
      out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] = 1, prev, curr, used, 1, 1
    else
      out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] = 0, prev, curr, used, rpmOk and 1 or 0, quotaOk and 1 or 0
    end
  end
end
return out
`;

/** At most this many requests in one batch call (a bound on the script's run time and reply). */
export const MAX_BATCH = 64;

const CMD = 'vehicleLimitConsumeV1';
const BATCH_CMD = 'vehicleLimitConsumeBatchV1';
const RECONCILE_CMD = 'vehicleLimitReconcileV1';

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

export class UsageStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UsageStoreError';
  }
}

export interface RedisLimiterOptions {
  redis: Redis;
  /** Prepended to every key (e.g. 'vis:limits:'); tests use a random one. */
  keyPrefix: string;
  clock?: Clock;
  /** Seeds a missing month counter (SET NX) and answers monthlyUsage for months Redis no longer holds. */
  usageStore: UsageStore;
  logger: Logger;
  /**
   * Requests made within one turn of the event loop share one script call per organisation (sent at
   * setImmediate, after the turn's I/O callbacks): one write and one reply instead of one each, and one
   * script run in Redis. Default true; false sends each request's own LIMIT_SCRIPT call at once.
   */
  coalesce?: boolean;
}

export interface RedisLimiter extends Limiter {
  consume(req: LimitRequest): Promise<CountedDecision>;
  /** Adds month deltas counted elsewhere (in-process during an outage) to existing month counters. */
  reconcile(deltas: ReadonlyArray<{ orgId: string; month: string; delta: number }>): Promise<number>;
  monthKey(orgId: string, month: string): string;
  readonly redis: Redis;
}

export function createRedisLimiter(opts: RedisLimiterOptions): RedisLimiter {
  const { redis, keyPrefix, usageStore, logger } = opts;
  const clock = opts.clock ?? Date.now;
  redis.defineCommand(CMD, { numberOfKeys: 3, lua: LIMIT_SCRIPT });
  redis.defineCommand(RECONCILE_CMD, { lua: RECONCILE_SCRIPT });
  redis.defineCommand(BATCH_CMD, { lua: LIMIT_BATCH_SCRIPT });
  const run = (redis as unknown as Record<string, ScriptFn>)[CMD]!.bind(redis);
  const runBatch = (redis as unknown as Record<string, ScriptFn>)[BATCH_CMD]!.bind(redis);
  const coalesce = opts.coalesce ?? true;
  const runReconcile = (redis as unknown as Record<string, ScriptFn>)[RECONCILE_CMD]!.bind(redis);
  const seeding = new Map<string, Promise<void>>();

  // A hash tag on the organisation keeps one request's keys in one slot (Redis Cluster).
  const monthKey = (orgId: string, month: string) => `${keyPrefix}{${orgId}}:q:${month}`;
  const minuteKey = (orgId: string, keyId: string, minute: number) => `${keyPrefix}{${orgId}}:r:${keyId}:${minute}`;

  // Requests waiting for this turn's batch call, per organisation (its keys share one hash slot).
  interface Waiting {
    keys: [string, string, string];
    rpmLimit: number;
    monthlyQuota: number;
    elapsed: number;
    resolve(r: number[]): void;
    reject(err: unknown): void;
  }
  let waiting = new Map<string, Waiting[]>();
  let scheduled = false;

  function sendBatch(list: Waiting[]): void {
    const keys: string[] = [];
    const args: number[] = [MINUTE_KEY_TTL_MS];
    for (const w of list) {
      keys.push(w.keys[0], w.keys[1], w.keys[2]);
      args.push(w.rpmLimit, w.monthlyQuota, w.elapsed);
    }
    runBatch(keys.length, ...keys, ...args).then(
      (res) => {
        const r = res as number[];
        for (let i = 0; i < list.length; i++) list[i]!.resolve(r.slice(6 * i, 6 * i + 6));
      },
      (err: unknown) => {
        for (const w of list) w.reject(err);
      },
    );
  }

  function flushWaiting(): void {
    scheduled = false;
    const all = waiting;
    waiting = new Map();
    for (const list of all.values()) {
      for (let i = 0; i < list.length; i += MAX_BATCH) sendBatch(list.length <= MAX_BATCH ? list : list.slice(i, i + MAX_BATCH));
    }
  }

  function script(req: LimitRequest, prevKey: string, currKey: string, mKey: string, elapsed: number): Promise<unknown> {
    if (!coalesce) return run(prevKey, currKey, mKey, req.rpmLimit, req.monthlyQuota, elapsed, MINUTE_KEY_TTL_MS);
    return new Promise<number[]>((resolve, reject) => {
      const w: Waiting = { keys: [prevKey, currKey, mKey], rpmLimit: req.rpmLimit, monthlyQuota: req.monthlyQuota, elapsed, resolve, reject };
      const list = waiting.get(req.orgId);
      if (list) list.push(w);
      else waiting.set(req.orgId, [w]);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flushWaiting);
      }
    });
  }

  function seed(orgId: string, month: string, now: number): Promise<void> {
    const key = monthKey(orgId, month);
    let p = seeding.get(key);
    if (!p) {
      p = (async () => {
        let used: number;
        try {
          used = await usageStore.getUsage(orgId, month);
        } catch (err) {
          throw new UsageStoreError(`reading usage of ${orgId} ${month} to seed Redis failed`, { cause: err });
        }
        const ttl = msToNextUtcMonth(now) + MONTH_KEY_MARGIN_MS;
        const set = await redis.set(key, String(used), 'PX', ttl, 'NX');
        if (set === 'OK') logger.info({ orgId, month, used }, 'limits: month counter seeded in Redis from the usage store');
      })().finally(() => seeding.delete(key));
      seeding.set(key, p);
    }
    return p;
  }

  return {
    kind: 'redis',
    redis,
    monthKey,

    async consume(req) {
      for (let attempt = 0; ; attempt++) {
        const now = clock();
        const month = utcMonth(now);
        const minute = minuteIndex(now);
        const res = (await script(
          req,
          minuteKey(req.orgId, req.keyId, minute - 1),
          minuteKey(req.orgId, req.keyId, minute),
          monthKey(req.orgId, month),
          elapsedInMinute(now),
        )) as number[];
        const [status, prev, curr, used, rpmOk, quotaOk] = res.map(Number) as [number, number, number, number, number, number];
        if (status === -1) {
          if (attempt >= 3) throw new Error(`limits: month counter ${monthKey(req.orgId, month)} keeps disappearing`);
          await seed(req.orgId, month, now);
          continue;
        }
        return buildDecision({
          now,
          rpmLimit: req.rpmLimit,
          monthlyQuota: req.monthlyQuota,
          prev,
          curr,
          used,
          rpmOk: rpmOk === 1,
          quotaOk: quotaOk === 1,
        });
      }
    },

    async monthlyUsage(orgId, month) {
      const m = month ?? utcMonth(clock());
      const v = await redis.get(monthKey(orgId, m));
      if (v !== null) return Number(v);
      return usageStore.getUsage(orgId, m);
    },

    async reconcile(deltas) {
      const list = deltas.filter((d) => d.delta !== 0);
      if (list.length === 0) return 0;
      return Number(await runReconcile(list.length, ...list.map((d) => monthKey(d.orgId, d.month)), ...list.map((d) => d.delta)));
    },

    async close() {
      /* the connection belongs to the caller */
    },
  };
}
