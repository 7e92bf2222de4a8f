import { Router } from 'express';
import { ServiceError } from '../../../shared/errors.ts';
import type { Queryable } from '../../db/database.ts';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchVehicles } from '../../catalog/search.ts';

export function searchRoutes(deps: { db: Queryable }): Router {
  const r = Router();
  r.get('/search', async (req, res) => {
    const q = req.query.q;
    for (const name of ['q', 'limit'] as const) {
      if (Array.isArray(req.query[name])) throw new ServiceError('bad_request', `Parameter ${name} must be given once`);
    }
    if (typeof q !== 'string' || q.trim() === '') {
      throw new ServiceError('bad_request', 'Parameter q is required: the text to search for');
    }
    // control characters (a NUL byte above all) are never part of a search and never reach SQL
    if (/[\u0000-\u001f\u007f-\u009f]/.test(q)) throw new ServiceError('bad_request', 'Parameter q contains control characters');
    if (q.length > 200) throw new ServiceError('bad_request', 'Parameter q is too long (at most 200 characters)');
    let limit = SEARCH_LIMIT_DEFAULT;
    if (req.query.limit !== undefined) {
      const raw = req.query.limit;
      // Like width, a limit above the maximum is clamped rather than refused.
      if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
        throw new ServiceError('bad_request', `Parameter limit must be a positive integer (at most ${SEARCH_LIMIT_MAX} results are returned)`);
      }
      limit = Math.min(SEARCH_LIMIT_MAX, Number(raw));
    }
    const results = await searchVehicles(deps.db, q, res.locals.principal.contract!.categoryIds, limit);
    res.json({ results });
  });
  return r;
}
