import type { AdminService } from '../admin/admin-service.ts';
import type { Queryable } from '../db/database.ts';
import type { UsageRecorder } from '../usage/recorder.ts';

export interface KeyDto {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/**
 * The organisation's active keys and its LISTED_REVOKED_KEYS most recently revoked ones, newest first;
 * last use includes this instance's unflushed calls.
 */
export async function listKeys(db: Queryable, recorder: UsageRecorder, orgId: string): Promise<KeyDto[]> {
  const rows = await db.query<{ id: string; name: string | null; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>(
    `SELECT id, name, prefix, created_at, last_used_at, revoked_at FROM (
       (SELECT * FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL)
       UNION ALL
       (SELECT * FROM api_keys WHERE org_id = $1 AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id LIMIT $2)
     ) k ORDER BY created_at DESC, id`,
    [orgId, LISTED_REVOKED_KEYS],
  );
  return rows.map((r) => {
    const pending = recorder.pendingLastUsed(r.id);
    const last = Math.max(r.last_used_at?.getTime() ?? 0, pending ?? 0);
    return {
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      created_at: r.created_at.toISOString(),
      last_used_at: last > 0 ? new Date(last).toISOString() : null,
      revoked_at: r.revoked_at?.toISOString() ?? null,
    };
  });
}

/**
 * Keys an organisation may hold and make through the dashboard: enough for every environment and
 * pipeline of a customer and a rotation of all of them in a day, few enough that a member (or a
 * stolen session) cannot fill the key table, by creating or by creating and revoking.
 */
export const DASHBOARD_MAX_ACTIVE_KEYS = 100;
export const DASHBOARD_MAX_NEW_KEYS_PER_DAY = 200;
/** Revoked keys the list shows (the most recently revoked): the list stays bounded. */
export const LISTED_REVOKED_KEYS = 100;

/** Created through the admin API's own path; the secret is returned once and never stored. */
export async function createKey(db: Queryable, admin: AdminService, orgId: string, name: string) {
  const k = await admin.createKey(orgId, name, { maxActive: DASHBOARD_MAX_ACTIVE_KEYS, maxPerDay: DASHBOARD_MAX_NEW_KEYS_PER_DAY });
  const rows = await db.query<{ created_at: Date }>('SELECT created_at FROM api_keys WHERE id = $1', [k.id]);
  return { id: k.id, name: k.name, prefix: k.prefix, created_at: rows[0]!.created_at.toISOString(), key: k.key };
}
