/**
 * In-process limiter with exactly the Redis limiter's semantics (see window.ts and docs/limits.md).
 * Check and count happen in one synchronous step, so concurrent consume() calls in this process are
 * atomic with respect to each other. Monthly counters are seeded from the UsageStore the first time an
 * organisation-month is seen, so a restart keeps the month's count.
 */
import { utcMonth, type Clock, type LimitRequest, type Limiter, type UsageStore } from './limiter.ts';
import { buildDecision, elapsedInMinute, minuteCounts, minuteIndex, orgMonthKey, rpmAdmits, type CountedDecision, type MinuteCounts } from './window.ts';

export interface MemoryLimiterOptions {
  clock?: Clock;
  /** Where a month's starting count comes from the first time an org-month is seen (none: 0). */
  usageSeed?: UsageStore;
  /** Keep per-org-month counts of what was admitted, for drainAdmitted() (the failover's fallback). */
  trackAdmitted?: boolean;
}

export interface MonthDelta {
  orgId: string;
  month: string;
  delta: number;
}

export interface MemoryLimiter extends Limiter {
  consume(req: LimitRequest): Promise<CountedDecision>;
  /**
   * Month counts admitted since the last drain()/reset(), per org-month, and zeroes them
   * (the failover limiter adds them to Redis when it switches back).
   */
  drainAdmitted(): MonthDelta[];
  /** Forgets every counter (the next consume re-seeds from the UsageStore). */
  reset(): void;
  /** Number of per-key minute entries and org-month entries held (for tests of bounded memory). */
  size(): { keys: number; months: number };
}


interface MonthCounter {
  orgId: string;
  month: string;
  used: number;
  admitted: number;
}

export function createMemoryLimiter(opts: MemoryLimiterOptions = {}): MemoryLimiter {
  const clock = opts.clock ?? Date.now;
  const seed = opts.usageSeed;
  const track = opts.trackAdmitted ?? false;
  let keys = new Map<string, MinuteCounts>();
  let months = new Map<string, MonthCounter>();
  let seeding = new Map<string, Promise<void>>();
  let generation = 0;
  let lastSweptMinute = -Infinity;
  let currentMonth = '';

  /** Drops minute entries older than the previous minute and org-months older than the current one. */
  function sweep(minute: number, month: string): void {
    if (minute !== lastSweptMinute) {
      lastSweptMinute = minute;
      for (const [k, w] of keys) if (w.minute < minute - 1) keys.delete(k);
    }
    if (month !== currentMonth) {
      currentMonth = month;
      // The previous month stays readable (monthlyUsage) until the next change; older ones go.
      const keepFrom = previousMonth(month);
      for (const [k, c] of months) if (c.month < keepFrom && c.admitted === 0) months.delete(k);
    }
  }

  function ensureSeeded(orgId: string, month: string): Promise<void> | null {
    const k = orgMonthKey(orgId, month);
    if (months.has(k)) return null;
    let p = seeding.get(k);
    if (!p) {
      const gen = generation;
      p = (async () => {
        try {
          const used = seed ? await seed.getUsage(orgId, month) : 0;
          if (gen === generation && !months.has(k)) months.set(k, { orgId, month, used, admitted: 0 });
        } finally {
          if (gen === generation) seeding.delete(k);
        }
      })();
      seeding.set(k, p);
    }
    return p;
  }

  function windowOf(keyId: string, minute: number): MinuteCounts {
    return minuteCounts(keys, keyId, minute);
  }

  return {
    kind: 'memory',

    async consume(req) {
      for (;;) {
        const month = utcMonth(clock());
        const p = ensureSeeded(req.orgId, month);
        if (p) await p;
        // From here on synchronous: check and count are one atomic step in this process.
        const now = clock();
        if (utcMonth(now) !== month) continue; // crossed into a new month while seeding
        const counter = months.get(orgMonthKey(req.orgId, month));
        if (!counter) continue; // reset() while seeding
        const minute = minuteIndex(now);
        sweep(minute, month);
        const w = windowOf(req.keyId, minute);
        const rpmOk = rpmAdmits(w.prev, w.curr, elapsedInMinute(now), req.rpmLimit);
        const quotaOk = counter.used + 1 <= req.monthlyQuota;
        if (rpmOk && quotaOk) {
          w.curr += 1;
          counter.used += 1;
          if (track) counter.admitted += 1;
        }
        return buildDecision({
          now,
          rpmLimit: req.rpmLimit,
          monthlyQuota: req.monthlyQuota,
          prev: w.prev,
          curr: w.curr,
          used: counter.used,
          rpmOk,
          quotaOk,
        });
      }
    },

    async monthlyUsage(orgId, month) {
      const m = month ?? utcMonth(clock());
      const c = months.get(orgMonthKey(orgId, m));
      if (c) return c.used;
      if (m === utcMonth(clock())) {
        const p = ensureSeeded(orgId, m);
        if (p) await p;
        return months.get(orgMonthKey(orgId, m))?.used ?? 0;
      }
      return seed ? seed.getUsage(orgId, m) : 0;
    },

    drainAdmitted() {
      const out: MonthDelta[] = [];
      for (const [k, c] of months) {
        if (c.admitted > 0) out.push({ orgId: c.orgId, month: c.month, delta: c.admitted });
        c.admitted = 0;
        if (c.month < previousMonth(currentMonth)) months.delete(k);
      }
      return out;
    },

    reset() {
      generation += 1;
      keys = new Map();
      months = new Map();
      seeding = new Map();
      lastSweptMinute = -Infinity;
    },

    size() {
      return { keys: keys.size, months: months.size };
    },

    async close() {
      /* nothing held */
    },
  };
}

function previousMonth(month: string): string {
  if (!month) return '';
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}
