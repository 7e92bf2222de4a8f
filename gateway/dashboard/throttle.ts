import { LRUCache } from 'lru-cache';
import { ServiceError } from '../../shared/errors.ts';

export interface FailureThrottle {
  /** Throws rate_limited (429 with Retry-After) while `subject` is over its limit. */
  check(subject: string, nowMs?: number): void;
  fail(subject: string, nowMs?: number): void;
}

/**
 * Failed sign-ins per subject (a client address, an email) in a fixed window. Over the limit every
 * attempt answers 429 until the window ends, right password included, so guessing stays blind.
 * In-process: each gateway instance keeps its own counts (docs/dashboard.md).
 */
export function createFailureThrottle(opts: { limit: number; windowMs: number; maxSubjects?: number }): FailureThrottle {
  const entries = new LRUCache<string, { count: number; resetAt: number }>({ max: opts.maxSubjects ?? 50_000 });
  const current = (subject: string, now: number) => {
    const e = entries.get(subject);
    return e && e.resetAt > now ? e : null;
  };
  return {
    check(subject, now = Date.now()) {
      const e = current(subject, now);
      if (e && e.count >= opts.limit) {
        throw new ServiceError('rate_limited', 'Too many failed sign-in attempts, retry later', {
          headers: { 'Retry-After': String(Math.max(1, Math.ceil((e.resetAt - now) / 1000))) },
        });
      }
    },
    fail(subject, now = Date.now()) {
      const e = current(subject, now);
      if (e) e.count += 1;
      else entries.set(subject, { count: 1, resetAt: now + opts.windowMs });
    },
  };
}
