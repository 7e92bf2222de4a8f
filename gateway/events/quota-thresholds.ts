import type { Queryable } from '../db/database.ts';
import { appendEvent } from './outbox.ts';

/** Percentages of the monthly quota that fire `quota.threshold` the first time the month reaches them. */
export const QUOTA_THRESHOLDS = [80, 90, 100] as const;

export interface UsageStep {
  orgId: string;
  month: string;
  /** The stored count before and after this flush's delta. */
  before: number;
  after: number;
  quota: number;
}

/** The thresholds a step from `before` to `after` reaches for the first time (none for a zero quota). */
export function crossedThresholds(step: Pick<UsageStep, 'before' | 'after' | 'quota'>): number[] {
  if (step.quota <= 0) return [];
  return QUOTA_THRESHOLDS.filter((t) => {
    const at = Math.ceil((step.quota * t) / 100);
    return step.before < at && step.after >= at;
  });
}

/**
 * Writes a `quota.threshold` event for every threshold the steps cross, in the usage flush's own
 * transaction. The quota_thresholds row is the once-per-month guard: two gateways whose flushes
 * both see a crossing (a quota raised and lowered, a flush retried after an unknown outcome)
 * write one event between them.
 */
export async function recordQuotaThresholds(tx: Queryable, steps: UsageStep[]): Promise<void> {
  const crossing = steps.filter((s) => crossedThresholds(s).length > 0);
  if (crossing.length === 0) return;
  // The rows the events reference are share-locked first, in one order, before the events' advisory
  // lock (outbox.ts): an admin change holds its organisation's row and then waits for that lock, so
  // taking a row after the lock could deadlock with it.
  await tx.query('SELECT id FROM organizations WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE', [[...new Set(crossing.map((s) => s.orgId))]]);
  for (const s of crossing) {
    for (const threshold of crossedThresholds(s)) {
      const won = await tx.query(
        'INSERT INTO quota_thresholds (org_id, month, threshold) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING threshold',
        [s.orgId, s.month, threshold],
      );
      if (won.length === 0) continue;
      await appendEvent(tx, s.orgId, 'quota.threshold', { threshold, used: s.after, quota: s.quota, month: s.month });
    }
  }
}
