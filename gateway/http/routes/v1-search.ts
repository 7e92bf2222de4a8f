import { Router } from 'express';
import { ServiceError } from '../../../shared/errors.ts';
import type { Queryable } from '../../db/database.ts';
import { singleParam } from '../../../shared/query-param.ts';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchVehicles } from '../../catalog/search.ts';

/** The longest search text, in characters (code points after NFC). */
const Q_MAX_CHARS = 200;

export function searchRoutes(deps: { db: Queryable }): Router {
  const r = Router();
  r.get('/search', async (req, res) => {
    const q = singleParam('q', req.query.q);
    const rawLimit = singleParam('limit', req.query.limit);
    if (q === undefined || q.trim() === '') {
      throw new ServiceError('bad_request', 'Parameter q is required: the text to search for');
    }
    // control characters (a NUL byte above all) are never part of a search and never reach SQL
    if (/[\u0000-\u001f\u007f-\u009f]/.test(q)) throw new ServiceError('bad_request', 'Parameter q contains control characters');
    // characters as people count them: code points, an accent typed as a combining mark joined to its letter
    if (q.length > Q_MAX_CHARS && [...q.normalize('NFC')].length > Q_MAX_CHARS) {
      throw new ServiceError('bad_request', `Parameter q is too long (at most ${Q_MAX_CHARS} characters)`);
    }
    let limit = SEARCH_LIMIT_DEFAULT;
    if (rawLimit !== undefined) {
      // Like width, a limit above the maximum is clamped rather than refused, however many digits
      if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1) {
        throw new ServiceError('bad_request', `Parameter limit must be a positive integer (at most ${SEARCH_LIMIT_MAX} results are returned)`);
      }
      limit = Math.min(SEARCH_LIMIT_MAX, Number(rawLimit));
    }
    const results = await searchVehicles(deps.db, q, res.locals.principal.contract!.categoryIds, limit);
    res.json({ results });
  });
  return r;
}
