/**
 * Per-key requests-per-minute and per-organisation monthly quota, checked and counted in one atomic
 * step. Implementations: Redis (Lua script) and in-process, with the same semantics; see docs/limits.md.
 */
export interface LimitRequest {
  keyId: string;
  orgId: string;
  rpmLimit: number;
  monthlyQuota: number;
}

export interface LimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window/period frees capacity (next minute, next UTC month). */
  resetSeconds: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** Why it was refused; when both refuse, the one with the later wait (the Retry-After's). */
  reason: 'rate_limited' | 'quota_exceeded' | null;
  rpm: LimitState;
  quota: LimitState & { used: number };
  /** Set when refused: seconds after which a retry can succeed. */
  retryAfterSeconds: number | null;
}

export interface Limiter {
  readonly kind: string;
  /** Checks both limits and, only if both admit, counts the request in both. */
  consume(req: LimitRequest): Promise<LimitDecision>;
  /** Counted requests of the organisation in the given UTC month ('YYYY-MM'; default: the current one). */
  monthlyUsage(orgId: string, month?: string): Promise<number>;
  close(): Promise<void>;
}

/** Durable copy of the monthly counters (PostgreSQL), written through in batches. */
export interface UsageStore {
  /** Adds the deltas atomically (upsert). */
  addUsage(deltas: ReadonlyArray<{ orgId: string; month: string; delta: number }>): Promise<void>;
  getUsage(orgId: string, month: string): Promise<number>;
}

export type Clock = () => number; // epoch milliseconds

export function utcMonth(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function secondsToNextUtcMonth(ms: number): number {
  const d = new Date(ms);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - ms) / 1000));
}
