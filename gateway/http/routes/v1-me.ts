import { Router } from 'express';
import type { CatalogRepo } from '../../catalog/catalog-repo.ts';
import type { Limiter } from '../../limits/limiter.ts';
import { utcMonth } from '../../limits/limiter.ts';

/** GET /v1/me: the caller's key, organisation, contract (with limits) and this month's usage. */
export function meRoutes(deps: { repo: CatalogRepo; limiter: Limiter }): Router {
  const r = Router();
  r.get('/me', async (_req, res) => {
    const p = res.locals.principal;
    const c = p.contract!;
    const all = await deps.repo.listCategories();
    const month = utcMonth(Date.now());
    const used = await deps.limiter.monthlyUsage(p.orgId, month);
    res.json({
      organization: { id: p.orgId, name: p.orgName },
      key: { id: p.keyId, name: p.keyName, prefix: p.keyPrefix },
      contract: {
        active: c.active,
        categories: all.filter((x) => c.categoryIds.includes(x.id)),
        allowed_formats: c.allowedFormats,
        rpm_limit: c.rpmLimit,
        monthly_quota: c.monthlyQuota,
      },
      usage: { month, requests: used, remaining: Math.max(0, c.monthlyQuota - used) },
    });
  });
  return r;
}
