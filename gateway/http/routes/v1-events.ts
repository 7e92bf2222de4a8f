import { Router } from 'express';
import type { Queryable } from '../../db/database.ts';
import { parseFeedQuery, readFeed } from '../../events/feed.ts';

/** GET /v1/events: the organisation's event feed, for clients that cannot receive webhooks (docs/events.md). */
export function eventRoutes(deps: { db: Queryable }): Router {
  const r = Router();
  r.get('/events', async (req, res) => {
    res.json(await readFeed(deps.db, res.locals.principal.orgId, parseFeedQuery(req.query)));
  });
  return r;
}
