/**
 * Rate-limit answer fields, IETF draft-ietf-httpapi-ratelimit-headers (structured-field form, -08 and
 * later), one form everywhere (docs/limits.md):
 *   RateLimit-Policy: "minute";q=60;w=60, "month";q=10000;w=2592000
 *   RateLimit: "minute";r=59;t=12, "month";r=9999;t=1234567
 * "minute" is the key's sliding requests-per-minute, "month" the organisation's quota for the UTC month
 * (w = the current month's length in seconds; t = seconds to the next UTC month). Retry-After (integer
 * seconds) is added when the request was refused.
 */
import type { LimitDecision } from './limiter.ts';

export const MINUTE_POLICY = 'minute';
export const MONTH_POLICY = 'month';

function monthSeconds(nowMs: number): number {
  const d = new Date(nowMs);
  return (Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)) / 1000;
}

const nonNeg = (n: number) => Math.max(0, Math.floor(n));

export function rateLimitHeaders(decision: LimitDecision, nowMs: number = Date.now()): Record<string, string> {
  const h: Record<string, string> = {
    'RateLimit-Policy': `"${MINUTE_POLICY}";q=${nonNeg(decision.rpm.limit)};w=60, "${MONTH_POLICY}";q=${nonNeg(decision.quota.limit)};w=${monthSeconds(nowMs)}`,
    RateLimit: `"${MINUTE_POLICY}";r=${nonNeg(decision.rpm.remaining)};t=${nonNeg(decision.rpm.resetSeconds)}, "${MONTH_POLICY}";r=${nonNeg(decision.quota.remaining)};t=${nonNeg(decision.quota.resetSeconds)}`,
  };
  if (!decision.allowed) h['Retry-After'] = String(Math.max(1, Math.ceil(decision.retryAfterSeconds ?? 1)));
  return h;
}
