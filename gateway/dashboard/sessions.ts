import type { Queryable } from '../db/database.ts';
import { randomToken, tokenHash } from './secrets.ts';

export const SESSION_COOKIE = 'vis_session';
/**
 * The cookie's name behind an https PUBLIC_BASE_URL: browsers take a `__Host-` cookie only when it is
 * Secure, on Path=/ and without a Domain, so a sibling subdomain (or a plain-http page of one) cannot
 * set or shadow it; over http it would be refused, so plain `vis_session` on /dashboard is kept there.
 */
export const HOST_SESSION_COOKIE = '__Host-vis_session';

export interface Session {
  idHash: string;
  memberId: string;
  email: string;
  hasPassword: boolean;
  orgId: string;
  orgName: string;
  csrfToken: string;
}

export interface Sessions {
  /** A new session; `id` goes in the cookie and only its hash is stored. */
  create(memberId: string, orgId: string): Promise<{ id: string; csrfToken: string }>;
  /** The live session of a cookie, or null: unknown, revoked, idle or past its lifetime, or a member of its organisation banned. */
  lookup(id: string): Promise<Session | null>;
  revoke(idHash: string): Promise<void>;
  /** Ends the member's other sessions (after a password change). */
  revokeOthers(memberId: string, keepIdHash: string): Promise<void>;
}

/** last_seen_at is written at most once a minute per session (a tenth of the idle time where that is shorter), not on every call. */
const TOUCH_AFTER_SECONDS = 60;

/**
 * The idle rule in SQL terms. A use within `touchAfter` of the last write is not written, so the stored
 * last use may be up to `touchAfter` early: a session lives until `idleSeconds + touchAfter` past it,
 * which is never less than `idleSeconds` past its real last use (and at most `touchAfter` more).
 */
function idleRule(idleSeconds: number): { touchAfter: number; idleLimit: number } {
  const touchAfter = Math.min(TOUCH_AFTER_SECONDS, Math.floor(idleSeconds / 10));
  return { touchAfter, idleLimit: idleSeconds + touchAfter };
}

export function createSessions(deps: { db: Queryable; idleSeconds: number; maxSeconds: number }): Sessions {
  const { db } = deps;
  const { touchAfter, idleLimit } = idleRule(deps.idleSeconds);
  return {
    async create(memberId, orgId) {
      const id = randomToken();
      const csrfToken = randomToken();
      // the member's ended sessions go, so the table holds live sessions, not every sign-in ever made
      await db.query(
        `DELETE FROM dashboard_sessions WHERE member_id = $1
            AND (revoked_at IS NOT NULL OR expires_at <= now() OR last_seen_at <= now() - $2::int * interval '1 second')`,
        [memberId, idleLimit],
      );
      await db.query(
        `INSERT INTO dashboard_sessions (id_hash, member_id, org_id, csrf_token, expires_at)
         VALUES ($1, $2, $3, $4, now() + $5::int * interval '1 second')`,
        [tokenHash(id), memberId, orgId, csrfToken, deps.maxSeconds],
      );
      return { id, csrfToken };
    },
    async lookup(id) {
      if (id.length === 0 || id.length > 200) return null;
      const idHash = tokenHash(id);
      // one round trip: the session, its member and organisation, and the ban rule (shared by every instance)
      const rows = await db.query<{
        member_id: string; email: string; has_password: boolean; org_id: string; org_name: string; csrf_token: string; stale: boolean;
      }>(
        `SELECT s.member_id, m.email, m.password_hash IS NOT NULL AS has_password, s.org_id, o.name AS org_name, s.csrf_token,
                s.last_seen_at < now() - $3::int * interval '1 second' AS stale
           FROM dashboard_sessions s
           JOIN members m ON m.id = s.member_id
           JOIN organizations o ON o.id = s.org_id
          WHERE s.id_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
            AND s.last_seen_at > now() - $2::int * interval '1 second'
            AND NOT EXISTS (SELECT 1 FROM members b WHERE b.org_id = s.org_id AND b.banned)`,
        [idHash, idleLimit, touchAfter],
      );
      const r = rows[0];
      if (!r) return null;
      if (r.stale) await db.query('UPDATE dashboard_sessions SET last_seen_at = now() WHERE id_hash = $1', [idHash]);
      return {
        idHash,
        memberId: r.member_id,
        email: r.email,
        hasPassword: r.has_password,
        orgId: r.org_id,
        orgName: r.org_name,
        csrfToken: r.csrf_token,
      };
    },
    async revoke(idHash) {
      await db.query('UPDATE dashboard_sessions SET revoked_at = now() WHERE id_hash = $1 AND revoked_at IS NULL', [idHash]);
    },
    async revokeOthers(memberId, keepIdHash) {
      await db.query(
        'UPDATE dashboard_sessions SET revoked_at = now() WHERE member_id = $1 AND id_hash <> $2 AND revoked_at IS NULL',
        [memberId, keepIdHash],
      );
    },
  };
}
