import { Router } from 'express';
import type { Queryable } from '../../db/database.ts';
import type { Limiter } from '../../limits/limiter.ts';
import type { UsageRecorder } from '../../usage/recorder.ts';
import { parseMonthParam, usageReport } from '../../usage/report.ts';

/** GET /v1/usage: the organisation's calls of a UTC month per day, key and kind (docs/api.md). */
export function usageRoutes(deps: { db: Queryable; limiter: Limiter; recorder: UsageRecorder }): Router {
  const r = Router();
  r.get('/usage', async (req, res) => {
    const month = parseMonthParam(req.query.month);
    res.json(await usageReport(deps, res.locals.principal, month));
  });
  return r;
}
