import { ServiceError } from '../../shared/errors.ts';
import { singleParam } from '../../shared/query-param.ts';
import type { Queryable } from '../db/database.ts';
import { EVENT_ID_RE, eventSeq, toDto, type EventDto, type EventRow } from './types.ts';

export const FEED_LIMIT_DEFAULT = 100;
export const FEED_LIMIT_MAX = 100;
/** How long events are kept (the dispatcher's sweep deletes older ones; the feed never shows them). */
export const RETENTION_DAYS = 30;

export interface FeedQuery {
  after: string | null;
  limit: number;
}

/** `after` (an event id) and `limit` (1…100; above is clamped, like search's) from a query string. */
export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  const after = singleParam('after', query.after);
  const rawLimit = singleParam('limit', query.limit);
  if (after !== undefined && !EVENT_ID_RE.test(after)) throw new ServiceError('bad_request', 'Parameter after must be an event id (evt_ and 16 digits)');
  let limit = FEED_LIMIT_DEFAULT;
  if (rawLimit !== undefined) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1) {
      throw new ServiceError('bad_request', `Parameter limit must be a positive integer (at most ${FEED_LIMIT_MAX} events are returned)`);
    }
    limit = Math.min(FEED_LIMIT_MAX, Number(rawLimit));
  }
  return { after: after ?? null, limit };
}

/**
 * The organisation's events after `after`, oldest first. `next` is the cursor for the next call:
 * the last event's id, or `after` itself when nothing is newer (null before any event).
 */
export async function readFeed(db: Queryable, orgId: string, q: FeedQuery): Promise<{ events: EventDto[]; next: string | null }> {
  const rows = await db.query<EventRow>(
    `SELECT seq::text AS seq, org_id, type, data, created_at FROM events
      WHERE org_id = $1 AND seq > $2::bigint AND created_at > now() - make_interval(days => $4)
      ORDER BY seq LIMIT $3`,
    [orgId, q.after ? eventSeq(q.after) : '0', q.limit, RETENTION_DAYS],
  );
  const events = rows.map(toDto);
  return { events, next: events.at(-1)?.id ?? q.after };
}
