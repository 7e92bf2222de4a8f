import type { Queryable } from '../db/database.ts';

/** A member as the dashboard sees it, with whether any member of their organisation is banned. */
export interface MemberRow {
  id: string;
  org_id: string;
  email: string;
  password_hash: string | null;
  org_banned: boolean;
}

const MEMBER_SQL = (where: string) =>
  `SELECT m.id, m.org_id, m.email, m.password_hash,
          EXISTS (SELECT 1 FROM members b WHERE b.org_id = m.org_id AND b.banned) AS org_banned
     FROM members m WHERE ${where} ORDER BY m.created_at, m.id`;

export async function findMember(db: Queryable, id: string): Promise<MemberRow | null> {
  return (await db.query<MemberRow>(MEMBER_SQL('m.id = $1'), [id]))[0] ?? null;
}

/** An email may belong to members of several organisations; each may have its own password. */
export function findMembersWithPassword(db: Queryable, email: string): Promise<MemberRow[]> {
  return db.query<MemberRow>(MEMBER_SQL('lower(m.email) = lower($1) AND m.password_hash IS NOT NULL'), [email]);
}

export async function setPasswordHash(db: Queryable, memberId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE members SET password_hash = $2 WHERE id = $1', [memberId, passwordHash]);
}
