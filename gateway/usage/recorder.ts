import type { Logger } from '../../shared/logger.ts';
import type { Database } from '../db/database.ts';
import { createWriteBehind } from '../db/write-behind.ts';
import type { UsageKind } from './kinds.ts';

/** One pending count: admitted calls of (organisation, key, kind, UTC day) not yet in usage_daily. */
export interface UsageDelta {
  orgId: string;
  /** null: the dashboard playground. */
  keyId: string | null;
  kind: UsageKind;
  day: string; // YYYY-MM-DD, UTC
  delta: number;
}

export interface UsageRecorder {
  record(orgId: string, keyId: string | null, kind: UsageKind, nowMs?: number): void;
  /** Writes the pending counts in one transaction; on failure they stay pending and the error is thrown. */
  flush(): Promise<void>;
  /**
   * Runs `read` with this instance's pending deltas, serialised with flushes: a batch being written
   * is either still pending or already stored when `read` runs, never both nor neither.
   */
  withPending<T>(read: (pending: readonly UsageDelta[]) => Promise<T>): Promise<T>;
  /** This instance's latest unflushed use of a key (ms), if any. */
  pendingLastUsed(keyId: string): number | undefined;
  /** Stops the timer and flushes (throws, after logging, if the last flush fails). */
  close(): Promise<void>;
  readonly failedFlushes: number;
}

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const deltaKey = (d: Omit<UsageDelta, 'delta'>) => `${d.orgId}\n${d.keyId ?? ''}\n${d.kind}\n${d.day}`;

/** What waits for the next flush: a per-day count, or a key's latest use (written as api_keys.last_used_at). */
type Pending = { count: UsageDelta } | { used: { keyId: string; ms: number } };

/**
 * Per-day usage counts, written behind: every admitted /v1 call adds 1 in memory; a timer writes the
 * deltas (and the keys' last use) every `flushMs` in one transaction, and close() writes the rest.
 * A failed write keeps its deltas for the next one and is logged with them, so nothing is lost or
 * counted twice. Counts of an organisation or key deleted meanwhile are left out, with a warning
 * naming them.
 */
export function createUsageRecorder(opts: { db: Database; logger: Logger; flushMs: number; closeTimeoutMs?: number }): UsageRecorder {
  const { db, logger } = opts;
  const countsOf = (batch: readonly Pending[]) => batch.flatMap((p) => ('count' in p ? [p.count] : []));
  const requests = (deltas: readonly UsageDelta[]) => deltas.reduce((s, d) => s + d.delta, 0);
  // counts and keys' last use are written in one transaction, so they share one write-behind
  const pending = createWriteBehind<string, Pending>({
    keyOf: (p) => ('count' in p ? `count\n${deltaKey(p.count)}` : `used\n${p.used.keyId}`),
    // a key never holds both shapes (keyOf prefixes them), so the last branch is never taken
    merge: (a, b) =>
      'count' in a && 'count' in b
        ? { count: { ...a.count, delta: a.count.delta + b.count.delta } }
        : 'used' in a && 'used' in b
          ? { used: { keyId: a.used.keyId, ms: Math.max(a.used.ms, b.used.ms) } }
          : b,
    write: async (batch) => {
      const dropped = await write(
        countsOf(batch),
        batch.flatMap((p) => ('used' in p ? [[p.used.keyId, p.used.ms] as [string, number]] : [])),
      );
      if (dropped.length > 0) {
        logger.warn({ dropped, requests: requests(dropped) }, 'usage: per-day counts of an organisation or key that no longer exists were left out');
      }
    },
    flushMs: opts.flushMs,
    onFlushFailed: (err, batch, failedFlushes) => {
      const deltas = countsOf(batch);
      logger.error(
        { err, deltas, requests: requests(deltas), failedFlushes },
        'usage: writing the per-day usage counts failed; they stay pending for the next flush',
      );
    },
    onCloseFailed: (err, lost) =>
      logger.error({ err, lost: countsOf(lost) }, 'usage: final flush on close failed; these per-day counts are not stored'),
    closeTimeoutMs: opts.closeTimeoutMs,
  });

  /** Writes the batch; answers the deltas left out because their organisation or key is gone. */
  async function write(batch: UsageDelta[], used: Array<[string, number]>): Promise<UsageDelta[]> {
    return db.transaction(async (tx) => {
      let dropped: UsageDelta[] = [];
      if (batch.length > 0) {
        const written = await tx.query<{ o: string; k: string; t: string; d: string }>(
          // rows whose organisation or key no longer exists are left out rather than failing every later flush
          `INSERT INTO usage_daily (org_id, key_id, kind, day, requests)
           SELECT u.o, u.k, u.t, u.d, u.n FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::int[]) AS u(o, k, t, d, n)
             JOIN organizations org ON org.id = u.o
            WHERE u.k IS NULL OR EXISTS (SELECT 1 FROM api_keys ak WHERE ak.id = u.k)
           ON CONFLICT (org_id, (COALESCE(key_id, '')), kind, day) DO UPDATE SET requests = usage_daily.requests + EXCLUDED.requests
           RETURNING org_id AS o, COALESCE(key_id, '') AS k, kind AS t, to_char(day, 'YYYY-MM-DD') AS d`,
          [batch.map((d) => d.orgId), batch.map((d) => d.keyId), batch.map((d) => d.kind), batch.map((d) => d.day), batch.map((d) => d.delta)],
        );
        const stored = new Set(written.map((r) => deltaKey({ orgId: r.o, keyId: r.k || null, kind: r.t as UsageKind, day: r.d })));
        dropped = batch.filter((d) => !stored.has(deltaKey(d)));
      }
      if (used.length > 0) {
        await tx.query(
          `UPDATE api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.t), u.t)
             FROM unnest($1::text[], $2::timestamptz[]) AS u(id, t) WHERE k.id = u.id`,
          [used.map(([id]) => id), used.map(([, ms]) => new Date(ms).toISOString())],
        );
      }
      return dropped;
    });
  }

  return {
    record(orgId, keyId, kind, nowMs = Date.now()) {
      const d = { orgId, keyId, kind, day: utcDay(nowMs), delta: 1 };
      if (pending.closed) {
        // a call admitted while the gateway stops, after the last flush: nothing would ever write it
        logger.warn({ lost: [d] }, 'usage: a call was recorded after the final flush; its per-day count is not stored');
        return;
      }
      pending.add({ count: d });
      if (keyId !== null) pending.add({ used: { keyId, ms: nowMs } });
    },
    flush: () => pending.flush(),
    withPending: (read) => pending.exclusive((p) => read(countsOf([...p.values()]))),
    pendingLastUsed(keyId) {
      const p = pending.get(`used\n${keyId}`);
      return p && 'used' in p ? p.used.ms : undefined;
    },
    get failedFlushes() {
      return pending.failedFlushes;
    },
    close: () => pending.close(),
  };
}
