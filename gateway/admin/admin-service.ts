import type { KeyedSecret } from '../../shared/config-fields.ts';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import { FORMATS, type ImageFormat } from '../../shared/render-options.ts';
import { isViewId } from '../../shared/views.ts';
import { generateApiKey, hashApiKey } from '../auth/api-key-format.ts';
import { CATALOG_INVALIDATION } from '../auth/authenticator.ts';
import type { InvalidationBus } from '../auth/invalidation-bus.ts';
import { randomId } from '../catalog/ids.ts';
import type { Database } from '../db/database.ts';
import type { Limiter } from '../limits/limiter.ts';
import { appendEvent } from '../events/outbox.ts';
import { CONTRACT_FEATURES, parseContractFeatures, type ContractFeature } from '../contract-features.ts';
import { utcMonth } from '../limits/limiter.ts';

export interface ContractInput {
  categories: string[]; // slugs
  allowed_formats: ImageFormat[];
  rpm_limit: number;
  monthly_quota: number;
  active: boolean;
  /** Browser origins allowed to call /v1 (CORS); absent: unchanged (a new contract: none). */
  allowed_origins?: string[];
  /** Features by name (gateway/contract-features.ts); unknown names are refused. Absent: unchanged (a new contract: none). */
  features?: string[];
}

export interface ContractDto extends ContractInput {
  organization_id: string;
  allowed_origins: string[];
  features: ContractFeature[];
  updated_at: string;
}

const notFound = (what: string) => new ServiceError('not_found', `${what} not found`);

/**
 * Operator actions. Every change that can alter what a key may do publishes an invalidation so
 * that every gateway's auth cache drops the organisation, and writes its event (docs/events.md) in
 * the change's own transaction.
 */
export class AdminService {
  constructor(
    private readonly db: Database,
    private readonly bus: InvalidationBus,
    private readonly hashSecret: KeyedSecret,
    private readonly limiter: Limiter,
    /** Called after a change that wrote an event committed: the webhook dispatcher looks at once. */
    private readonly eventWritten: () => void = () => {},
  ) {}

  listCategories() {
    return this.db.query<{ id: string; slug: string; name: string }>('SELECT id, slug, name FROM categories ORDER BY slug');
  }

  async createOrganization(name: string) {
    const id = randomId('org');
    await this.db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
    return { id, name };
  }

  listOrganizations() {
    return this.db.query<{ id: string; name: string }>('SELECT id, name FROM organizations ORDER BY created_at, id');
  }

  private async requireOrg(orgId: string) {
    const rows = await this.db.query<{ id: string; name: string }>('SELECT id, name FROM organizations WHERE id = $1', [orgId]);
    if (!rows[0]) throw notFound('Organization');
    return rows[0];
  }

  async getOrganization(orgId: string) {
    const org = await this.requireOrg(orgId);
    const [contract, keys, members] = await Promise.all([
      this.getContract(orgId),
      this.db.query('SELECT id, name, prefix, created_at, revoked_at FROM api_keys WHERE org_id = $1 ORDER BY created_at, id', [orgId]),
      this.db.query('SELECT id, email, banned FROM members WHERE org_id = $1 ORDER BY created_at, id', [orgId]),
    ]);
    return { ...org, contract, keys, members };
  }

  async getContract(orgId: string): Promise<ContractDto | null> {
    const rows = await this.db.query<{
      allowed_formats: ImageFormat[]; rpm_limit: number; monthly_quota: number; active: boolean; updated_at: Date; categories: string[];
      allowed_origins: string[]; features: string[];
    }>(
      `SELECT c.allowed_formats, c.rpm_limit, c.monthly_quota, c.active, c.updated_at, c.allowed_origins, c.features,
              ARRAY(SELECT cat.slug FROM contract_categories cc JOIN categories cat ON cat.id = cc.category_id
                     WHERE cc.org_id = c.org_id ORDER BY cat.slug) AS categories
         FROM contracts c WHERE c.org_id = $1`,
      [orgId],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      organization_id: orgId,
      categories: r.categories,
      allowed_formats: FORMATS.filter((f) => r.allowed_formats.includes(f)),
      rpm_limit: r.rpm_limit,
      monthly_quota: r.monthly_quota,
      active: r.active,
      allowed_origins: r.allowed_origins,
      features: CONTRACT_FEATURES.filter((f) => r.features.includes(f)),
      updated_at: r.updated_at.toISOString(),
    };
  }

  async putContract(orgId: string, input: ContractInput): Promise<ContractDto> {
    await this.requireOrg(orgId);
    const slugs = [...new Set(input.categories)];
    const cats = await this.db.query<{ id: string; slug: string; name: string }>('SELECT id, slug, name FROM categories WHERE slug = ANY($1::text[]) ORDER BY lower(name), name, slug', [slugs]);
    const unknown = slugs.filter((s) => !cats.some((c) => c.slug === s));
    if (unknown.length) throw new ServiceError('bad_request', `Unknown categories: ${unknown.join(', ')}`);
    const features = input.features ? parseContractFeatures(input.features) : null;
    await this.db.transaction(async (tx) => {
      const [stored] = await tx.query<{ features: string[] }>(
        `INSERT INTO contracts (org_id, allowed_formats, rpm_limit, monthly_quota, active, allowed_origins, features, updated_at)
         VALUES ($1, $2::text[], $3, $4, $5, COALESCE($6::text[], '{}'), COALESCE($7::text[], '{}'), now())
         ON CONFLICT (org_id) DO UPDATE SET allowed_formats = EXCLUDED.allowed_formats, rpm_limit = EXCLUDED.rpm_limit,
           monthly_quota = EXCLUDED.monthly_quota, active = EXCLUDED.active,
           allowed_origins = COALESCE($6::text[], contracts.allowed_origins),
           features = COALESCE($7::text[], contracts.features), updated_at = now()
         RETURNING features`,
        [orgId, [...new Set(input.allowed_formats)], input.rpm_limit, input.monthly_quota, input.active,
          input.allowed_origins ? [...new Set(input.allowed_origins)] : null, features],
      );
      await tx.query('DELETE FROM contract_categories WHERE org_id = $1', [orgId]);
      await tx.query(
        'INSERT INTO contract_categories (org_id, category_id) SELECT $1, unnest($2::text[])',
        [orgId, cats.map((c) => c.id)],
      );
      // the contract as GET /v1/me shows it
      await appendEvent(tx, orgId, 'contract.updated', {
        active: input.active,
        categories: cats,
        allowed_formats: [...new Set(input.allowed_formats)],
        rpm_limit: input.rpm_limit,
        monthly_quota: input.monthly_quota,
        features: CONTRACT_FEATURES.filter((f) => stored!.features.includes(f)),
      });
    });
    this.eventWritten();
    await this.bus.publish(orgId);
    return (await this.getContract(orgId))!;
  }

  /**
   * `caps` (the dashboard's self-service; the operator's admin API has none): refuse (403) when the
   * organisation already has `maxActive` unrevoked keys, or created `maxPerDay` in the last 24 hours
   * (so create-and-revoke cannot grow the key table without bound either). The counts and the insert
   * hold the organisation's row, read committed whatever the server's default, so concurrent
   * creations cannot both pass the last free place.
   */
  async createKey(orgId: string, name: string | null, caps: { maxActive: number; maxPerDay: number } | null = null) {
    const { key, displayPrefix } = generateApiKey();
    const id = randomId('key');
    await this.db.transaction(async (tx) => {
      // the counts must see a concurrent creation that committed while this one waited for the lock
      await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      const org = await tx.query<{ id: string }>('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
      if (!org[0]) throw notFound('Organization');
      if (caps) {
        const [row] = await tx.query<{ active: number; today: number }>(
          `SELECT count(*) FILTER (WHERE revoked_at IS NULL)::int AS active,
                  count(*) FILTER (WHERE created_at > now() - interval '1 day')::int AS today
             FROM api_keys WHERE org_id = $1`,
          [orgId],
        );
        if ((row?.active ?? 0) >= caps.maxActive) throw new ServiceError('forbidden', MESSAGES.tooManyActiveKeys(caps.maxActive));
        if ((row?.today ?? 0) >= caps.maxPerDay) throw new ServiceError('forbidden', MESSAGES.tooManyNewKeys(caps.maxPerDay));
      }
      await tx.query(
        'INSERT INTO api_keys (id, org_id, name, prefix, key_hash, secret_id) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, orgId, name, displayPrefix, hashApiKey(key, this.hashSecret), this.hashSecret.id],
      );
      await appendEvent(tx, orgId, 'key.created', { key_id: id, name });
    });
    this.eventWritten();
    return { id, key, name, prefix: displayPrefix, organization_id: orgId };
  }

  async revokeKey(keyId: string) {
    await this.revoke(keyId, null);
    return { id: keyId, revoked: true };
  }

  /** The dashboard's revoke: only a key of the member's own organisation (another's is not found). */
  async revokeOrganizationKey(orgId: string, keyId: string) {
    const r = await this.revoke(keyId, orgId);
    return { id: keyId, revoked_at: r.revoked_at.toISOString() };
  }

  /** Revokes once: a second revocation keeps the first time and writes no second `key.revoked`. */
  private async revoke(keyId: string, orgId: string | null) {
    const row = await this.db.transaction(async (tx) => {
      const rows = await tx.query<{ org_id: string; revoked_at: Date; was_active: boolean }>(
        `WITH k AS (SELECT id, revoked_at IS NULL AS was_active FROM api_keys WHERE id = $1 AND ($2::text IS NULL OR org_id = $2) FOR UPDATE)
         UPDATE api_keys a SET revoked_at = COALESCE(a.revoked_at, now()) FROM k WHERE a.id = k.id
         RETURNING a.org_id, a.revoked_at, k.was_active`,
        [keyId, orgId],
      );
      const r = rows[0];
      if (!r) throw notFound('Key');
      if (r.was_active) await appendEvent(tx, r.org_id, 'key.revoked', { key_id: keyId });
      return r;
    });
    if (row.was_active) this.eventWritten();
    await this.bus.publish(row.org_id);
    return row;
  }

  async addMember(orgId: string, email: string) {
    await this.requireOrg(orgId);
    const id = randomId('mem');
    const rows = await this.db.query<{ id: string; email: string }>(
      `INSERT INTO members (id, org_id, email) VALUES ($1, $2, $3)
       ON CONFLICT (org_id, lower(email)) DO NOTHING RETURNING id, email`,
      [id, orgId, email],
    );
    if (!rows[0]) throw new ServiceError('bad_request', 'This email is already a member of the organization');
    return rows[0];
  }

  /**
   * A ban writes `access.disabled`; lifting the organisation's last one writes `access.restored`.
   * The organisation's row is held so that two bans or unbans at once count each other's.
   */
  async setBanned(memberId: string, banned: boolean) {
    const { orgId, email, wrote } = await this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      const [m] = await tx.query<{ org_id: string }>('SELECT org_id FROM members WHERE id = $1', [memberId]);
      if (!m) throw notFound('Member');
      await tx.query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [m.org_id]);
      const [before] = await tx.query<{ banned: boolean; email: string }>('SELECT banned, email FROM members WHERE id = $1', [memberId]);
      if (!before) throw notFound('Member');
      await tx.query('UPDATE members SET banned = $2 WHERE id = $1', [memberId, banned]);
      let wrote = false;
      if (banned && !before.banned) {
        // a ban ends every dashboard session of the organisation at once (the lookup also refuses while it lasts)
        await tx.query('DELETE FROM dashboard_sessions WHERE org_id = $1', [m.org_id]);
        await appendEvent(tx, m.org_id, 'access.disabled', { reason: 'member_banned', member_id: memberId });
        wrote = true;
      } else if (banned) {
        await tx.query('DELETE FROM dashboard_sessions WHERE org_id = $1', [m.org_id]);
      } else if (before.banned) {
        const [left] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM members WHERE org_id = $1 AND banned', [m.org_id]);
        if ((left?.n ?? 0) === 0) {
          await appendEvent(tx, m.org_id, 'access.restored', { member_id: memberId });
          wrote = true;
        }
      }
      return { orgId: m.org_id, email: before.email, wrote };
    });
    if (wrote) this.eventWritten();
    await this.bus.publish(orgId);
    return { id: memberId, email, banned };
  }

  async usage(orgId: string) {
    await this.requireOrg(orgId);
    const month = utcMonth(Date.now());
    return { month, requests: await this.limiter.monthlyUsage(orgId, month) };
  }

  /** Drops every gateway's cached catalog answers (publication) used by image downloads. */
  async catalogChanged(): Promise<void> {
    await this.bus.publish(CATALOG_INVALIDATION);
  }

  async setVehiclePublished(vehicleId: string, published: boolean) {
    const rows = await this.db.query('UPDATE vehicles SET published = $2 WHERE id = $1 RETURNING id', [vehicleId, published]);
    if (!rows[0]) throw notFound('Vehicle');
    await this.bus.publish(CATALOG_INVALIDATION); // image downloads re-check publication
    return { id: vehicleId, published };
  }

  async setViewPublished(vehicleId: string, view: string, published: boolean) {
    if (!isViewId(view)) throw notFound('View');
    const rows = await this.db.query(
      'UPDATE vehicle_views SET published = $3 WHERE vehicle_id = $1 AND view = $2 RETURNING view',
      [vehicleId, view, published],
    );
    if (!rows[0]) {
      // which of the two is missing: an unknown vehicle is "Vehicle not found", as on PATCH /vehicles/{id}
      const vehicle = await this.db.query('SELECT 1 FROM vehicles WHERE id = $1', [vehicleId]);
      throw notFound(vehicle.length === 0 ? 'Vehicle' : 'View');
    }
    await this.bus.publish(CATALOG_INVALIDATION); // image downloads re-check publication
    return { vehicle_id: vehicleId, view, published };
  }
}
