/**
 * Write-through of monthly counts to the UsageStore (PostgreSQL): every admitted request adds 1 to a
 * pending per-org-month delta; the deltas are flushed in one batch every `flushMs` and on close().
 * A failed flush keeps its deltas for the next try (logged with the detail); nothing is dropped silently.
 *
 * The buffer also offers `seedStore`: a UsageStore whose getUsage is the stored value plus this
 * process's pending delta, read under the same lock as a flush so nothing is counted twice or missed.
 * Limiters seed missing month counters from it, so a Redis restart loses nothing this process counted.
 */
import type { Logger } from '../../shared/logger.ts';
import { utcMonth, type Clock, type LimitRequest, type Limiter, type UsageStore } from './limiter.ts';
import { orgMonthKey, type CountedDecision } from './window.ts';
import type { MonthDelta } from './memory-limiter.ts';

export const DEFAULT_USAGE_FLUSH_MS = 2000;

export interface UsageBufferOptions {
  usageStore: UsageStore;
  /** USAGE_FLUSH_MS; default 2000. 0 or less: no timer (flush() / close() only). */
  flushMs?: number;
  logger: Logger;
}

export interface UsageBuffer {
  add(orgId: string, month: string, n: number): void;
  /** Writes the pending deltas in one batch; on failure they stay pending and the error is thrown. */
  flush(): Promise<void>;
  /** Pending (unflushed) count of one org-month. */
  pending(orgId: string, month: string): number;
  /** Stored value + pending delta; for seeding limiters. */
  readonly seedStore: UsageStore;
  /** Stops the timer and flushes (throws, after logging, if the last flush fails). */
  close(): Promise<void>;
  /** Flushes that failed so far (for tests and metrics). */
  readonly failedFlushes: number;
}

export function createUsageBuffer(opts: UsageBufferOptions): UsageBuffer {
  const { usageStore, logger } = opts;
  const flushMs = opts.flushMs ?? DEFAULT_USAGE_FLUSH_MS;
  let pending = new Map<string, MonthDelta>();
  let failed = 0;
  let closed = false;
  // Flushes and seed reads are serialised: a seed read never sees a batch half-way.
  let lock: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = lock.then(fn, fn);
    lock = p.catch(() => {});
    return p;
  };

  function add(orgId: string, month: string, n: number): void {
    const k = orgMonthKey(orgId, month);
    const d = pending.get(k);
    if (d) d.delta += n;
    else pending.set(k, { orgId, month, delta: n });
  }

  const flush = () =>
    exclusive(async () => {
      if (pending.size === 0) return;
      const batch = [...pending.values()];
      pending = new Map();
      try {
        await usageStore.addUsage(batch);
      } catch (err) {
        failed += 1;
        for (const d of batch) add(d.orgId, d.month, d.delta); // kept for the next try
        logger.error(
          { err, deltas: batch, orgMonths: batch.length, requests: batch.reduce((s, d) => s + d.delta, 0), failedFlushes: failed },
          'limits: writing monthly usage to the usage store failed; the counts stay pending for the next flush',
        );
        throw err;
      }
    });

  const timer = flushMs > 0 ? setInterval(() => void flush().catch(() => {}), flushMs) : null;
  timer?.unref();

  return {
    add,
    flush,
    pending: (orgId, month) => pending.get(orgMonthKey(orgId, month))?.delta ?? 0,
    seedStore: {
      addUsage: (deltas) => usageStore.addUsage(deltas),
      getUsage: (orgId, month) =>
        exclusive(async () => (await usageStore.getUsage(orgId, month)) + (pending.get(orgMonthKey(orgId, month))?.delta ?? 0)),
    },
    get failedFlushes() {
      return failed;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      try {
        await flush();
      } catch (err) {
        logger.error({ err, lost: [...pending.values()] }, 'limits: final usage flush on close failed; these counts are not in the usage store');
        throw err;
      }
    },
  };
}

export interface WriteThroughLimiter extends Limiter {
  flush(): Promise<void>;
  readonly buffer: UsageBuffer;
}

/** Wraps any Limiter so that every admitted request is written through to the buffer's UsageStore. */
export function withWriteThrough(inner: Limiter, buffer: UsageBuffer, clock: Clock = Date.now): WriteThroughLimiter {
  return {
    kind: `${inner.kind}+write-through`,
    buffer,
    async consume(req: LimitRequest) {
      const d = await inner.consume(req);
      if (d.allowed) buffer.add(req.orgId, (d as Partial<CountedDecision>).month ?? utcMonth(clock()), 1);
      return d;
    },
    monthlyUsage: (orgId, month) => inner.monthlyUsage(orgId, month),
    flush: () => buffer.flush(),
    async close() {
      try {
        await buffer.close();
      } finally {
        await inner.close();
      }
    },
  };
}

/** Convenience: a write-through limiter with its own buffer. */
export function createWriteThrough(opts: UsageBufferOptions & { inner: Limiter; clock?: Clock }): WriteThroughLimiter {
  return withWriteThrough(opts.inner, createUsageBuffer(opts), opts.clock);
}
