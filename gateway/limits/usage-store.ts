import type { Database, Queryable } from '../db/database.ts';
import type { UsageStore } from './limiter.ts';

/** One org-month of a flushed batch: its stored count before and after, and the contract's quota (0: none). */
export interface FlushedUsage {
  orgId: string;
  month: string;
  before: number;
  after: number;
  quota: number;
}

export interface SqlUsageStoreOptions {
  /**
   * Runs inside the batch's transaction once the counts are written (quota threshold events,
   * gateway/events/quota-thresholds.ts): what it writes commits exactly when the counts do.
   */
  afterAdd?: (tx: Queryable, rows: FlushedUsage[]) => Promise<void>;
}

export function createSqlUsageStore(db: Database, opts: SqlUsageStoreOptions = {}): UsageStore {
  return {
    async addUsage(deltas) {
      if (deltas.length === 0) return;
      // a fixed row order: two gateways flushing overlapping batches lock the rows in the same order
      const sorted = [...deltas].sort((a, b) => (a.orgId === b.orgId ? (a.month < b.month ? -1 : 1) : a.orgId < b.orgId ? -1 : 1));
      await db.transaction(async (tx) => {
        // One statement for the batch: unnest keeps it a single round trip. RETURNING gives each
        // row's count after this batch, as serialised by the row lock against other gateways' flushes.
        const rows = await tx.query<{ org_id: string; month: string; requests: number; delta: number; quota: number | null }>(
          `WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) AS t(o, m, d)),
                up AS (
                  INSERT INTO monthly_usage (org_id, month, requests) SELECT o, m, d FROM t
                  ON CONFLICT (org_id, month) DO UPDATE SET requests = monthly_usage.requests + EXCLUDED.requests
                  RETURNING org_id, month, requests)
           SELECT up.org_id, up.month, up.requests, t.d AS delta, c.monthly_quota AS quota
             FROM up JOIN t ON t.o = up.org_id AND t.m = up.month
             LEFT JOIN contracts c ON c.org_id = up.org_id`,
          [sorted.map((d) => d.orgId), sorted.map((d) => d.month), sorted.map((d) => d.delta)],
        );
        if (opts.afterAdd) {
          await opts.afterAdd(
            tx,
            rows.map((r) => ({ orgId: r.org_id, month: r.month, before: r.requests - r.delta, after: r.requests, quota: r.quota ?? 0 })),
          );
        }
      });
    },
    async getUsage(orgId, month) {
      const rows = await db.query<{ requests: number }>(
        'SELECT requests FROM monthly_usage WHERE org_id = $1 AND month = $2',
        [orgId, month],
      );
      return rows[0]?.requests ?? 0;
    },
  };
}
