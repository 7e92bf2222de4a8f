import type { Queryable } from '../db/database.ts';
import type { UsageStore } from './limiter.ts';

export function createSqlUsageStore(db: Queryable): UsageStore {
  return {
    async addUsage(deltas) {
      if (deltas.length === 0) return;
      // One statement for the batch: unnest keeps it a single round trip and atomic.
      await db.query(
        `INSERT INTO monthly_usage (org_id, month, requests)
         SELECT o, m, d FROM unnest($1::text[], $2::text[], $3::int[]) AS t(o, m, d)
         ON CONFLICT (org_id, month) DO UPDATE SET requests = monthly_usage.requests + EXCLUDED.requests`,
        [deltas.map((d) => d.orgId), deltas.map((d) => d.month), deltas.map((d) => d.delta)],
      );
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
