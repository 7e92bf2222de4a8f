import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import type { Queryable } from '../db/database.ts';
import { findMember } from './members.ts';
import { randomToken, tokenHash } from './secrets.ts';

export interface SignInLinks {
  /** A single-use link for the member (admin API and CLI); the token sits in the URL's fragment. */
  issue(memberId: string): Promise<{ url: string; expires_at: string }>;
  /** Uses the link up (atomically) and names its member; null when unknown, used or expired. */
  redeem(token: string): Promise<string | null>;
}

export function createSignInLinks(deps: { db: Queryable; ttlSeconds: number; publicBaseUrl: () => string }): SignInLinks {
  return {
    async issue(memberId) {
      const m = await findMember(deps.db, memberId);
      if (!m) throw new ServiceError('not_found', 'Member not found');
      if (m.org_banned) throw new ServiceError('forbidden', MESSAGES.banned);
      const token = randomToken();
      // the member's spent links go: the table holds only links that can still be used
      await deps.db.query('DELETE FROM sign_in_links WHERE member_id = $1 AND (used_at IS NOT NULL OR expires_at <= now())', [memberId]);
      const rows = await deps.db.query<{ expires_at: Date }>(
        `INSERT INTO sign_in_links (token_hash, member_id, expires_at)
         VALUES ($1, $2, now() + $3::int * interval '1 second') RETURNING expires_at`,
        [tokenHash(token), memberId, deps.ttlSeconds],
      );
      // in the fragment: never sent to a server, so it stays out of access logs, proxies and Referer
      return { url: `${deps.publicBaseUrl()}/dashboard/sign-in#token=${token}`, expires_at: rows[0]!.expires_at.toISOString() };
    },
    async redeem(token) {
      if (token.length === 0 || token.length > 200) return null;
      const rows = await deps.db.query<{ member_id: string }>(
        `UPDATE sign_in_links SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING member_id`,
        [tokenHash(token)],
      );
      return rows[0]?.member_id ?? null;
    },
  };
}
