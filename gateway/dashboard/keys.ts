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

/** The organisation's keys, newest first; last use includes this instance's unflushed calls. */
export async function listKeys(db: Queryable, recorder: UsageRecorder, orgId: string): Promise<KeyDto[]> {
  const rows = await db.query<{ id: string; name: string | null; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>(
    'SELECT id, name, prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id',
    [orgId],
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
 * Active keys an organisation may hold through the dashboard: enough for every environment and
 * pipeline of a customer, few enough that a member (or a stolen session) cannot fill the key table.
 */
export const DASHBOARD_MAX_ACTIVE_KEYS = 100;

/** Created through the admin API's own path; the secret is returned once and never stored. */
export async function createKey(db: Queryable, admin: AdminService, orgId: string, name: string) {
  const k = await admin.createKey(orgId, name, { maxActive: DASHBOARD_MAX_ACTIVE_KEYS });
  const rows = await db.query<{ created_at: Date }>('SELECT created_at FROM api_keys WHERE id = $1', [k.id]);
  return { id: k.id, name: k.name, prefix: k.prefix, created_at: rows[0]!.created_at.toISOString(), key: k.key };
}
