/**
 * Composition of the limiters (docs/limits.md):
 * - redisUrl set: Redis limiter (Lua) + failover to the in-process limiter + write-behind to the store;
 * - redisUrl null: in-process limiter + write-behind.
 * Nothing connects at import time; the Redis connection is made by createLimiter().
 */
import { Redis } from 'ioredis';
import type { Logger } from '../../shared/logger.ts';
import type { Clock, Limiter, UsageStore } from './limiter.ts';
import { createMemoryLimiter } from './memory-limiter.ts';
import { createRedisLimiter } from './redis-limiter.ts';
import { createResilientLimiter, type ResilientLimiter } from './failover-limiter.ts';
import { createUsageBuffer, DEFAULT_USAGE_FLUSH_MS, withWriteBehind } from './write-behind-limiter.ts';

export interface CreateLimiterOptions {
  /** REDIS_URL, or null for the in-process limiter. */
  redisUrl: string | null;
  usageStore: UsageStore;
  /** USAGE_FLUSH_MS: how often admitted counts are written to the usage store; default 2000. */
  flushMs?: number;
  logger: Logger;
  /** How long the final usage flush on close may take (write-behind-limiter.ts closeTimeoutMs). */
  closeTimeoutMs?: number;
  clock?: Clock;
  /** Redis key prefix; default 'vis:limits:'. */
  keyPrefix?: string;
  /** Redis command timeout (ms) after which a request fails over; default 250. */
  commandTimeoutMs?: number;
  /** How often to check whether Redis is back while failed over; default 1000 ms. */
  probeMs?: number;
}

export interface ManagedLimiter extends Limiter {
  /** Writes pending monthly counts to the usage store now. */
  flush(): Promise<void>;
  /** 'memory' (no Redis configured), 'redis', or 'fallback' (Redis configured but unreachable). */
  mode(): 'memory' | 'redis' | 'fallback';
  /** Resolves once Redis is connected (true) or after timeoutMs (false); true at once without Redis. */
  ready(timeoutMs?: number): Promise<boolean>;
  /** Flushes pending counts, stops timers and closes the Redis connection it opened. */
  close(): Promise<void>;
}

export function createLimiter(opts: CreateLimiterOptions): ManagedLimiter {
  const clock = opts.clock ?? Date.now;
  const buffer = createUsageBuffer({ usageStore: opts.usageStore, flushMs: opts.flushMs ?? DEFAULT_USAGE_FLUSH_MS, logger: opts.logger, closeTimeoutMs: opts.closeTimeoutMs });

  if (!opts.redisUrl) {
    const limiter = withWriteBehind(createMemoryLimiter({ clock, usageSeed: buffer.seedStore }), buffer, clock);
    return { ...limiter, kind: limiter.kind, mode: () => 'memory', ready: async () => true, flush: limiter.flush, close: limiter.close };
  }

  const redis = new Redis(opts.redisUrl, {
    enableOfflineQueue: false, // while disconnected, commands fail at once instead of queueing
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 250,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(100 * times, 1000), // keep reconnecting, at most every second
  });
  let lastErrorLog = 0;
  redis.on('error', (err: Error) => {
    // The failover logs the outage once; connection errors repeat on every reconnect attempt.
    if (Date.now() - lastErrorLog > 60_000) {
      lastErrorLog = Date.now();
      opts.logger.debug({ err: err.message }, 'limits: Redis connection error');
    }
  });
  const primary = createRedisLimiter({
    redis,
    keyPrefix: opts.keyPrefix ?? 'vis:limits:',
    clock,
    usageStore: buffer.seedStore,
    logger: opts.logger,
  });
  const fallback = createMemoryLimiter({ clock, usageSeed: buffer.seedStore, trackAdmitted: true });
  const resilient: ResilientLimiter = createResilientLimiter({ primary, fallback, logger: opts.logger, probeMs: opts.probeMs });
  const limiter = withWriteBehind(resilient, buffer, clock);

  return {
    kind: limiter.kind,
    consume: limiter.consume,
    monthlyUsage: limiter.monthlyUsage,
    flush: limiter.flush,
    mode: () => (resilient.mode() === 'primary' ? 'redis' : 'fallback'),
    ready(timeoutMs = 2000) {
      if (redis.status === 'ready') return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const t = setTimeout(() => {
          redis.off('ready', onReady);
          resolve(false);
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(t);
          resolve(true);
        };
        redis.once('ready', onReady);
      });
    },
    async close() {
      try {
        await limiter.close();
      } finally {
        redis.disconnect();
      }
    },
  };
}
