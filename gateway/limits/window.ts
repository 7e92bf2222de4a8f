/**
 * The arithmetic both limiters share (the Redis Lua script repeats `rpmAdmits` exactly), so the
 * in-process and Redis limiters decide identically. See docs/limits.md.
 *
 * Sliding minute: with `prev` requests counted in the previous calendar minute, `curr` in the current
 * one and `e` milliseconds elapsed in the current minute, the estimate is
 *   prev × (60000 − e) / 60000 + curr
 * and a request is admitted iff estimate + 1 ≤ limit. Evaluated in integers, without rounding:
 *   prev × (60000 − e) + (curr + 1) × 60000 ≤ limit × 60000
 * (exact in doubles far beyond any realistic count, so Lua and JavaScript agree bit for bit).
 */
import { secondsToNextUtcMonth, utcMonth, type LimitDecision } from './limiter.ts';

export const MINUTE_MS = 60_000;

/** A decision plus the UTC month the quota was counted in (write-behind uses it at month edges). */
export interface CountedDecision extends LimitDecision {
  month: string;
}

/** Counts of one sliding minute: `curr` in calendar minute `minute`, `prev` in the one before. */
export interface MinuteCounts {
  minute: number;
  curr: number;
  prev: number;
}

/** The counts of `key` brought forward to `minute` (created when absent). */
export function minuteCounts(map: Map<string, MinuteCounts>, key: string, minute: number): MinuteCounts {
  let w = map.get(key);
  if (!w) {
    w = { minute, curr: 0, prev: 0 };
    map.set(key, w);
  } else if (w.minute !== minute) {
    w.prev = w.minute === minute - 1 ? w.curr : 0;
    w.curr = 0;
    w.minute = minute;
  }
  return w;
}

export function minuteIndex(ms: number): number {
  return Math.floor(ms / MINUTE_MS);
}

export function elapsedInMinute(ms: number): number {
  return ms - minuteIndex(ms) * MINUTE_MS;
}

export function rpmAdmits(prev: number, curr: number, elapsedMs: number, limit: number): boolean {
  return prev * (MINUTE_MS - elapsedMs) + (curr + 1) * MINUTE_MS <= limit * MINUTE_MS;
}

/** How many more requests the sliding minute would admit right now. */
export function rpmRemaining(prev: number, curr: number, elapsedMs: number, limit: number): number {
  const room = Math.floor((limit * MINUTE_MS - prev * (MINUTE_MS - elapsedMs)) / MINUTE_MS) - curr;
  return Math.max(0, room);
}

/**
 * Milliseconds from now until one more request would be admitted, assuming nothing else is admitted
 * meanwhile (0 if it would be admitted now; Infinity if never, i.e. limit < 1).
 */
export function rpmWaitMs(prev: number, curr: number, elapsedMs: number, limit: number): number {
  if (limit < 1) return Infinity;
  if (rpmAdmits(prev, curr, elapsedMs, limit)) return 0;
  if (curr + 1 <= limit) {
    // Within this minute, once the previous minute's weight has fallen far enough (prev > 0 here).
    const e = Math.ceil(MINUTE_MS - ((limit - curr - 1) * MINUTE_MS) / prev);
    return Math.max(1, e - elapsedMs);
  }
  // Next minute: prev' = curr, curr' = 0.
  const e2 = Math.max(0, Math.ceil(MINUTE_MS - ((limit - 1) * MINUTE_MS) / curr));
  return MINUTE_MS - elapsedMs + e2;
}

/**
 * Builds the decision from the raw counters. `prev`, `curr`, `used` are the values after counting
 * (i.e. including this request when it was admitted).
 */
export function buildDecision(p: {
  now: number;
  rpmLimit: number;
  monthlyQuota: number;
  prev: number;
  curr: number;
  used: number;
  rpmOk: boolean;
  quotaOk: boolean;
}): CountedDecision {
  const e = elapsedInMinute(p.now);
  const allowed = p.rpmOk && p.quotaOk;
  const monthReset = secondsToNextUtcMonth(p.now);
  let retryAfterSeconds: number | null = null;
  let reason: LimitDecision['reason'] = null;
  if (!allowed) {
    const rpmWait = p.rpmOk ? 0 : rpmWaitMs(p.prev, p.curr, e, p.rpmLimit);
    const rpmSec = Number.isFinite(rpmWait) ? Math.ceil(rpmWait / 1000) : 60;
    const quotaSec = p.quotaOk ? 0 : monthReset;
    // when both refuse, the one the client waits for names the answer, as it sets Retry-After: a
    // "per minute" message with a Retry-After of days would send it looking at the wrong limit
    reason = p.quotaOk || (!p.rpmOk && rpmSec > quotaSec) ? 'rate_limited' : 'quota_exceeded';
    retryAfterSeconds = Math.max(1, rpmSec, quotaSec);
  }
  return {
    allowed,
    reason,
    rpm: {
      limit: p.rpmLimit,
      remaining: rpmRemaining(p.prev, p.curr, e, p.rpmLimit),
      resetSeconds: Math.max(1, Math.ceil((MINUTE_MS - e) / 1000)),
    },
    quota: {
      limit: p.monthlyQuota,
      used: p.used,
      remaining: Math.max(0, p.monthlyQuota - p.used),
      resetSeconds: monthReset,
    },
    retryAfterSeconds,
    month: utcMonth(p.now),
  };
}

/** Milliseconds until the end of the UTC month of `ms`. */
export function msToNextUtcMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - ms;
}

export function orgMonthKey(orgId: string, month: string): string {
  return `${orgId}\u0000${month}`;
}
