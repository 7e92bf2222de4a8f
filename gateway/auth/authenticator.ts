import { LRUCache } from 'lru-cache';
import type { KeyedSecret } from '../../shared/config-fields.ts';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import type { Queryable } from '../db/database.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.ts';
import type { InvalidationBus } from './invalidation-bus.ts';
import { findPrincipalByHashes, findPrincipalByKeyId, findPrincipalForOrg, isDashboardKeyId, type Principal } from './principal.ts';
import type { ImageFormat } from '../../shared/render-options.ts';
import { isFrameId } from '../../shared/shot-id.ts';

/** What a signed image URL was granted for (gateway/signing/image-token.ts). */
export interface DownloadGrant {
  org: string;
  key: string;
  vehicle: string;
  view: string;
  format: ImageFormat;
}

/** Published on the invalidation bus when a vehicle or view is (un)published: drops the cached catalog answers. */
export const CATALOG_INVALIDATION = '*catalog';

export interface Authenticator {
  /** Resolves the key or throws the spec's 401/403 errors, in the spec's order. */
  authenticate(apiKey: string | undefined): Promise<Principal>;
  /**
   * Re-checks the grant of a signed image URL through the same cache and invalidation as
   * `authenticate`: key not revoked (401), no member banned, contract active, format and category
   * still allowed (403, the spec's messages), vehicle and view still published (404). A spin frame
   * (`view` a frame id) has no catalog view: its grant is the contract's `spin` feature instead (403).
   */
  authorizeDownload(grant: DownloadGrant): Promise<Principal>;
}

interface Entry {
  principal: Principal | null;
  orgId: string | null;
}

/**
 * Key verification with an in-process cache of positive and negative answers. Entries live at most
 * `ttlMs`; an invalidation for an organisation drops its entries at once.
 */
export function createAuthenticator(opts: {
  db: Queryable;
  hashSecrets: KeyedSecret[];
  bus: InvalidationBus;
  ttlMs: number;
  maxEntries?: number;
}): Authenticator {
  const cache = new LRUCache<string, Entry>({ max: opts.maxEntries ?? 50_000, ttl: opts.ttlMs });
  // vehicle id + view → category and whether both are published (image downloads)
  const vehicles = new LRUCache<string, { categoryId: string | null; vehiclePublished: boolean; viewPublished: boolean }>({ max: 20_000, ttl: opts.ttlMs });
  // A lookup that started before an invalidation must not repopulate the cache with stale data.
  let generation = 0;
  opts.bus.onInvalidate((orgId) => {
    generation++;
    if (orgId === CATALOG_INVALIDATION) {
      vehicles.clear();
      return;
    }
    for (const [k, v] of cache.entries()) {
      if (v.orgId === orgId || v.orgId === null) cache.delete(k);
    }
  });

  async function resolveById(keyId: string): Promise<Principal | null> {
    const cacheKey = `id:${keyId}`;
    const cached = cache.get(cacheKey);
    if (cached) return cached.principal;
    const gen = generation;
    // a grant of the dashboard playground names its organisation, not a key
    const principal = isDashboardKeyId(keyId)
      ? await findPrincipalForOrg(opts.db, keyId.slice('dash_'.length))
      : await findPrincipalByKeyId(opts.db, keyId);
    if (gen === generation) cache.set(cacheKey, { principal, orgId: principal?.orgId ?? null });
    return principal;
  }

  async function vehicleView(vehicleId: string, view: string): Promise<{ categoryId: string | null; vehiclePublished: boolean; viewPublished: boolean }> {
    const cacheKey = `${vehicleId}\n${view}`;
    const cached = vehicles.get(cacheKey);
    if (cached) return cached;
    const gen = generation;
    const rows = await opts.db.query<{ category_id: string; vehicle_published: boolean; view_published: boolean }>(
      `SELECT v.category_id, v.published AS vehicle_published, COALESCE(vv.published, false) AS view_published
         FROM vehicles v LEFT JOIN vehicle_views vv ON vv.vehicle_id = v.id AND vv.view = $2
        WHERE v.id = $1`,
      [vehicleId, view],
    );
    const row = rows[0];
    const answer = { categoryId: row?.category_id ?? null, vehiclePublished: row?.vehicle_published ?? false, viewPublished: row?.view_published ?? false };
    if (gen === generation) vehicles.set(cacheKey, answer);
    return answer;
  }

  async function resolve(apiKey: string): Promise<Principal | null> {
    // Keyed by the hash, not the key, so that no secret sits in the heap longer than a request.
    const cacheKey = hashApiKey(apiKey, opts.hashSecrets[0]!);
    const cached = cache.get(cacheKey);
    if (cached) return cached.principal;
    const gen = generation;
    // the hashes under the older secrets (during a rotation) only for a key not in the cache
    const hashes = [cacheKey, ...opts.hashSecrets.slice(1).map((s) => hashApiKey(apiKey, s))];
    const principal = await findPrincipalByHashes(opts.db, hashes);
    if (gen === generation) cache.set(cacheKey, { principal, orgId: principal?.orgId ?? null });
    return principal;
  }

  return {
    async authenticate(apiKey) {
      if (apiKey === undefined || apiKey === '') throw new ServiceError('unauthorized', MESSAGES.missingKey);
      if (!isWellFormedApiKey(apiKey)) throw new ServiceError('unauthorized', MESSAGES.invalidKey);
      const p = await resolve(apiKey);
      if (!p || p.revoked) throw new ServiceError('unauthorized', MESSAGES.invalidKey);
      if (p.banned) throw new ServiceError('forbidden', MESSAGES.banned);
      if (!p.contract || !p.contract.active) throw new ServiceError('forbidden', MESSAGES.noContract);
      return p;
    },

    async authorizeDownload(g) {
      const p = await resolveById(g.key);
      if (!p || p.revoked || p.orgId !== g.org) throw new ServiceError('unauthorized', MESSAGES.invalidKey);
      if (p.banned) throw new ServiceError('forbidden', MESSAGES.banned);
      if (!p.contract || !p.contract.active) throw new ServiceError('forbidden', MESSAGES.noContract);
      if (!p.contract.allowedFormats.includes(g.format)) throw new ServiceError('forbidden', MESSAGES.formatNotInContract(g.format));
      const frame = isFrameId(g.view);
      if (frame && !p.contract.features.includes('spin')) throw new ServiceError('forbidden', MESSAGES.spinNotInContract);
      const v = await vehicleView(g.vehicle, g.view);
      // the messages of the /v1 calls that issued the URL (docs/api.md): the vehicle, then its view
      if (!v.vehiclePublished || v.categoryId === null) throw new ServiceError('not_found', 'Vehicle not found');
      if (!frame && !v.viewPublished) throw new ServiceError('not_found', 'View not found');
      if (!p.contract.categoryIds.includes(v.categoryId)) throw new ServiceError('forbidden', MESSAGES.categoryNotInContract);
      return p;
    },
  };
}
