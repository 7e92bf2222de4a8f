/**
 * Serves from Redis while it answers; when it does not (connection errors, command timeouts: the
 * connection has a short command timeout and no offline queue, so nothing hangs), switches to the
 * in-process limiter, logs that once, probes Redis every `probeMs`, and when Redis answers again adds the
 * month counts taken in-process during the outage to Redis (INCRBY on existing month counters; a missing
 * counter is seeded from the usage store, which already holds them through write-behind) and switches
 * back, logging it. See docs/limits.md.
 */
import type { Logger } from '../../shared/logger.ts';
import type { LimitRequest, Limiter } from './limiter.ts';
import type { MemoryLimiter, MonthDelta } from './memory-limiter.ts';
import { UsageStoreError, type RedisLimiter } from './redis-limiter.ts';
import { orgMonthKey, type CountedDecision } from './window.ts';

export interface ResilientLimiterOptions {
  primary: RedisLimiter;
  /** Should be created with trackAdmitted: true (its admitted counts are reconciled into Redis). */
  fallback: MemoryLimiter;
  logger: Logger;
  /** How often to check whether Redis is back while failed over; default 1000 ms. */
  probeMs?: number;
}

export type LimiterMode = 'primary' | 'fallback';

export interface ResilientLimiter extends Limiter {
  consume(req: LimitRequest): Promise<CountedDecision>;
  mode(): LimiterMode;
  /** Runs one probe now (tests); resolves true when it switched back to Redis. */
  probe(): Promise<boolean>;
}

export function createResilientLimiter(opts: ResilientLimiterOptions): ResilientLimiter {
  const { primary, fallback, logger } = opts;
  const probeMs = opts.probeMs ?? 1000;
  let mode: LimiterMode = 'primary';
  let since = 0;
  let failedRequests = 0;
  let timer: NodeJS.Timeout | null = null;
  let probing: Promise<boolean> | null = null;
  let closed = false;
  // Deltas that could not be added to Redis yet (a reconcile failed); retried at the next recovery.
  const unreconciled = new Map<string, MonthDelta>();

  const keep = (ds: MonthDelta[]) => {
    for (const d of ds) {
      const k = orgMonthKey(d.orgId, d.month);
      const u = unreconciled.get(k);
      if (u) u.delta += d.delta;
      else unreconciled.set(k, { ...d });
    }
  };

  function failOver(err: unknown): void {
    if (mode === 'fallback' || closed) return;
    mode = 'fallback';
    since = Date.now();
    failedRequests = 0;
    fallback.reset(); // re-seeded from the usage store (+ this process's pending counts)
    logger.warn(
      { err, redisStatus: primary.redis.status },
      'limits: Redis unreachable; serving rate limits and quotas from the in-process limiter until it is back',
    );
    timer = setInterval(() => void probe(), probeMs);
    timer.unref();
  }

  function probe(): Promise<boolean> {
    if (mode === 'primary') return Promise.resolve(true);
    if (!probing) {
      probing = (async () => {
        try {
          await primary.redis.ping();
          keep(fallback.drainAdmitted());
          const batch = [...unreconciled.values()];
          unreconciled.clear();
          try {
            await primary.reconcile(batch);
          } catch (err) {
            keep(batch);
            throw err;
          }
          // Switch in the same tick as the last drain: nothing admitted in-process is left behind.
          const rest = fallback.drainAdmitted();
          mode = 'primary';
          if (timer) clearInterval(timer);
          timer = null;
          const reconciled = [...batch, ...rest];
          logger.info(
            {
              outageMs: Date.now() - since,
              requestsServedInProcess: failedRequests,
              reconciled,
              reconciledRequests: reconciled.reduce((s, d) => s + d.delta, 0),
            },
            'limits: Redis is back; added the in-process month counts to Redis and switched back to it',
          );
          if (rest.length > 0) {
            await primary.reconcile(rest).catch((err) => {
              keep(rest);
              failOver(err);
            });
          }
          return true;
        } catch {
          return false;
        } finally {
          probing = null;
        }
      })();
    }
    return probing;
  }

  return {
    kind: 'redis+failover',
    mode: () => mode,
    probe,

    async consume(req) {
      if (mode === 'primary') {
        try {
          return await primary.consume(req);
        } catch (err) {
          if (err instanceof UsageStoreError) throw err; // PostgreSQL, not Redis: failing over would not help
          failOver(err);
        }
      }
      failedRequests += 1;
      return fallback.consume(req);
    },

    async monthlyUsage(orgId, month) {
      if (mode === 'primary') {
        try {
          return await primary.monthlyUsage(orgId, month);
        } catch (err) {
          if (err instanceof UsageStoreError) throw err;
          failOver(err);
        }
      }
      return fallback.monthlyUsage(orgId, month);
    },

    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      if (mode === 'fallback') {
        keep(fallback.drainAdmitted());
        const left = [...unreconciled.values()];
        if (left.length > 0) {
          try {
            await primary.reconcile(left);
          } catch (err) {
            logger.warn(
              { err, deltas: left },
              'limits: closing while Redis is unreachable; these in-process counts are in the usage store but not in Redis',
            );
          }
        }
      }
      await Promise.allSettled([primary.close(), fallback.close()]);
    },
  };
}
