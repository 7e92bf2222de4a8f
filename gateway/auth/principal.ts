import type { Queryable } from '../db/database.ts';
import type { ImageFormat } from '../../shared/render-options.ts';
import type { ContractFeature } from '../contract-features.ts';

/** Who is calling, resolved from an API key: the key, its organisation, and the contract. */
export interface Principal {
  keyId: string;
  keyName: string | null;
  keyPrefix: string;
  orgId: string;
  orgName: string;
  revoked: boolean;
  banned: boolean;
  contract: Contract | null;
}

export interface Contract {
  active: boolean;
  categoryIds: string[];
  allowedFormats: ImageFormat[];
  rpmLimit: number;
  monthlyQuota: number;
  /** Calls sold apart (gateway/contract-features.ts), e.g. spin. */
  features: ContractFeature[];
}

interface PrincipalRow {
  key_id: string;
  key_name: string | null;
  prefix: string;
  org_id: string;
  org_name: string;
  revoked: boolean;
  banned: boolean;
  active: boolean | null;
  allowed_formats: ImageFormat[] | null;
  rpm_limit: number | null;
  monthly_quota: number | null;
  features: ContractFeature[] | null;
  category_ids: string[];
}

const PRINCIPAL_SQL = (where: string) =>
  `SELECT k.id AS key_id, k.name AS key_name, k.prefix, k.org_id, o.name AS org_name,
          k.revoked_at IS NOT NULL AS revoked,
          EXISTS (SELECT 1 FROM members m WHERE m.org_id = k.org_id AND m.banned) AS banned,
          c.active, c.allowed_formats, c.rpm_limit, c.monthly_quota, c.features,
          ARRAY(SELECT cc.category_id FROM contract_categories cc WHERE cc.org_id = k.org_id ORDER BY 1) AS category_ids
     FROM api_keys k
     JOIN organizations o ON o.id = k.org_id
     LEFT JOIN contracts c ON c.org_id = k.org_id
    WHERE ${where}
    LIMIT 1`;

/** One round trip: the key by any of its candidate hashes (one per hashing secret), org, ban, contract. */
export async function findPrincipalByHashes(db: Queryable, hashes: string[]): Promise<Principal | null> {
  return toPrincipal(await db.query<PrincipalRow>(PRINCIPAL_SQL('k.key_hash = ANY($1::text[])'), [hashes]));
}

/** The same answer by the key's id: what a signed image URL's grant names. */
export async function findPrincipalByKeyId(db: Queryable, keyId: string): Promise<Principal | null> {
  return toPrincipal(await db.query<PrincipalRow>(PRINCIPAL_SQL('k.id = $1'), [keyId]));
}

/**
 * The dashboard playground calls /v1 as its organisation, with no key: its principal carries this
 * synthetic key id (never an api_keys id, which start `key_`), so the per-minute window, the image
 * grants and the usage records all name it; usage stores it as key NULL.
 */
export function dashboardKeyId(orgId: string): string {
  return `dash_${orgId}`;
}

export function isDashboardKeyId(keyId: string): boolean {
  return keyId.startsWith('dash_');
}

/** The organisation as a keyless principal (the playground): ban and contract as for a key. */
export async function findPrincipalForOrg(db: Queryable, orgId: string): Promise<Principal | null> {
  const rows = await db.query<PrincipalRow>(
    `SELECT $2::text AS key_id, NULL::text AS key_name, '' AS prefix, o.id AS org_id, o.name AS org_name, false AS revoked,
            EXISTS (SELECT 1 FROM members m WHERE m.org_id = o.id AND m.banned) AS banned,
            c.active, c.allowed_formats, c.rpm_limit, c.monthly_quota, c.features,
            ARRAY(SELECT cc.category_id FROM contract_categories cc WHERE cc.org_id = o.id ORDER BY 1) AS category_ids
       FROM organizations o LEFT JOIN contracts c ON c.org_id = o.id
      WHERE o.id = $1`,
    [orgId, dashboardKeyId(orgId)],
  );
  return toPrincipal(rows);
}

function toPrincipal(rows: PrincipalRow[]): Principal | null {
  const r = rows[0];
  if (!r) return null;
  return {
    keyId: r.key_id,
    keyName: r.key_name,
    keyPrefix: r.prefix,
    orgId: r.org_id,
    orgName: r.org_name,
    revoked: r.revoked,
    banned: r.banned,
    contract:
      r.active === null
        ? null
        : {
            active: r.active,
            categoryIds: r.category_ids,
            allowedFormats: r.allowed_formats ?? [],
            rpmLimit: r.rpm_limit ?? 0,
            monthlyQuota: r.monthly_quota ?? 0,
            features: r.features ?? [],
          },
  };
}
