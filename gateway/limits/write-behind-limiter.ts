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
import { createWriteBehind } from '../db/write-behind.ts';

export const DEFAULT_USAGE_FLUSH_MS = 2000;

export interface UsageBufferOptions {
  usageStore: UsageStore;
  /** USAGE_FLUSH_MS; default 2000. 0 or less: no timer (flush() / close() only). */
  flushMs?: number;
  logger: Logger;
  /** How long the final flush on close may take before its counts are logged as lost (write-behind.ts). */
  closeTimeoutMs?: number;
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
  const deltas = createWriteBehind<string, MonthDelta>({
    keyOf: (d) => orgMonthKey(d.orgId, d.month),
    merge: (a, b) => ({ ...a, delta: a.delta + b.delta }),
    write: (batch) => usageStore.addUsage(batch),
    flushMs: opts.flushMs ?? DEFAULT_USAGE_FLUSH_MS,
    onFlushFailed: (err, batch, failedFlushes) =>
      logger.error(
        { err, deltas: batch, orgMonths: batch.length, requests: batch.reduce((s, d) => s + d.delta, 0), failedFlushes },
        'limits: writing monthly usage to the usage store failed; the counts stay pending for the next flush',
      ),
    onCloseFailed: (err, lost) => logger.error({ err, lost }, 'limits: final usage flush on close failed; these counts are not in the usage store'),
    closeTimeoutMs: opts.closeTimeoutMs,
  });
  const pendingOf = (orgId: string, month: string) => deltas.get(orgMonthKey(orgId, month))?.delta ?? 0;

  return {
    add: (orgId, month, n) => deltas.add({ orgId, month, delta: n }),
    flush: () => deltas.flush(),
    pending: pendingOf,
    seedStore: {
      addUsage: (d) => usageStore.addUsage(d),
      // under the flush lock: a batch being written is counted either as pending or as stored, once
      getUsage: (orgId, month) => deltas.exclusive(async () => (await usageStore.getUsage(orgId, month)) + pendingOf(orgId, month)),
    },
    get failedFlushes() {
      return deltas.failedFlushes;
    },
    close: () => deltas.close(),
  };
}

export interface WriteBehindLimiter extends Limiter {
  flush(): Promise<void>;
  readonly buffer: UsageBuffer;
}

/** Wraps any Limiter so that every admitted request is written through to the buffer's UsageStore. */
export function withWriteBehind(inner: Limiter, buffer: UsageBuffer, clock: Clock = Date.now): WriteBehindLimiter {
  return {
    kind: `${inner.kind}+write-behind`,
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

/** Convenience: a write-behind limiter with its own buffer. */
export function createWriteBehindLimiter(opts: UsageBufferOptions & { inner: Limiter; clock?: Clock }): WriteBehindLimiter {
  return withWriteBehind(opts.inner, createUsageBuffer(opts), opts.clock);
}
