import type { Queryable } from '../db/database.ts';
import { eventId, type EventType } from './types.ts';

/** Any constant works; it only has to be the same in every gateway instance (migrate.ts has another). */
const EVENTS_LOCK = 74_211_033;

/**
 * Writes one event, and a pending delivery to each of the organisation's enabled endpoints that
 * want its type, inside the caller's transaction: the event exists exactly when its cause committed.
 *
 * The id is taken under a transaction-scoped advisory lock, so ids commit in their order and the
 * feed's `after` cursor never skips one that committed late. Events are rare (admin actions,
 * thresholds): the lock serialises only the writers of events, from here to their commit.
 */
export async function appendEvent(tx: Queryable, orgId: string, type: EventType, data: Record<string, unknown>): Promise<string> {
  // the organisation's row (which the event references) before the lock, never after: a transaction
  // holding the lock must not wait for a row that another, waiting for the lock, holds
  await tx.query('SELECT id FROM organizations WHERE id = $1 FOR KEY SHARE', [orgId]);
  await tx.query('SELECT pg_advisory_xact_lock($1)', [EVENTS_LOCK]);
  const [row] = await tx.query<{ seq: string }>(
    `INSERT INTO events (seq, org_id, type, data) VALUES (nextval('events_seq'), $1, $2, $3::jsonb) RETURNING seq::text AS seq`,
    [orgId, type, JSON.stringify(data)],
  );
  const seq = row!.seq;
  await tx.query(
    `INSERT INTO webhook_deliveries (event_seq, endpoint_id)
     SELECT $1::bigint, id FROM webhook_endpoints
      WHERE org_id = $2 AND disabled_at IS NULL AND (cardinality(events) = 0 OR $3 = ANY(events))`,
    [seq, orgId, type],
  );
  return eventId(seq);
}
