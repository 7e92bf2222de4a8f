import { Router } from 'express';
import type { Principal } from '../../auth/principal.ts';
import { isDashboardKeyId } from '../../auth/principal.ts';
import type { CatalogRepo } from '../../catalog/catalog-repo.ts';
import type { Limiter } from '../../limits/limiter.ts';
import { utcMonth } from '../../limits/limiter.ts';

/**
 * The organisation, contract and this UTC month's usage of a principal: GET /v1/me's figures, also
 * shown by the dashboard's contract page (where the contract may be missing or inactive: null / as stored).
 */
export async function accountSummary(deps: { repo: CatalogRepo; limiter: Limiter }, p: Principal) {
  const c = p.contract;
  const all = await deps.repo.listCategories();
  const month = utcMonth(Date.now());
  const used = await deps.limiter.monthlyUsage(p.orgId, month);
  const quota = c?.monthlyQuota ?? 0;
  return {
    organization: { id: p.orgId, name: p.orgName },
    contract: c
      ? {
          active: c.active,
          categories: all.filter((x) => c.categoryIds.includes(x.id)),
          allowed_formats: c.allowedFormats,
          rpm_limit: c.rpmLimit,
          monthly_quota: c.monthlyQuota,
          features: c.features,
        }
      : null,
    usage: { month, requests: used, remaining: Math.max(0, quota - used) },
  };
}

/** GET /v1/me: the caller's key, organisation, contract (with limits) and this month's usage. */
export function meRoutes(deps: { repo: CatalogRepo; limiter: Limiter }): Router {
  const r = Router();
  r.get('/me', async (_req, res) => {
    const p = res.locals.principal;
    const { organization, contract, usage } = await accountSummary(deps, p);
    // the dashboard playground calls as its organisation, with no key
    const key = isDashboardKeyId(p.keyId) ? { id: null, name: null, prefix: null } : { id: p.keyId, name: p.keyName, prefix: p.keyPrefix };
    res.json({ organization, key, contract, usage });
  });
  return r;
}
