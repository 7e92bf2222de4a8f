import { LRUCache } from 'lru-cache';
import type { KeyedSecret } from '../../shared/config.ts';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import type { Queryable } from '../db/database.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.ts';
import type { InvalidationBus } from './invalidation-bus.ts';
import { findPrincipalByHashes, type Principal } from './principal.ts';

export interface Authenticator {
  /** Resolves the key or throws the spec's 401/403 errors, in the spec's order. */
  authenticate(apiKey: string | undefined): Promise<Principal>;
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
  // A lookup that started before an invalidation must not repopulate the cache with stale data.
  let generation = 0;
  opts.bus.onInvalidate((orgId) => {
    generation++;
    for (const [k, v] of cache.entries()) {
      if (v.orgId === orgId || v.orgId === null) cache.delete(k);
    }
  });

  async function resolve(apiKey: string): Promise<Principal | null> {
    // Keyed by the hash, not the key, so that no secret sits in the heap longer than a request.
    const hashes = opts.hashSecrets.map((s) => hashApiKey(apiKey, s));
    const cacheKey = hashes[0]!;
    const cached = cache.get(cacheKey);
    if (cached) return cached.principal;
    const gen = generation;
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
  };
}
