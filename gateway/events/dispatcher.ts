import type { Logger } from '../../shared/logger.ts';
import type { Database } from '../db/database.ts';
import { postWebhook, type PostResult } from './delivery.ts';
import { signatureHeaders } from './signing.ts';
import type { TargetPolicy } from './target-safety.ts';
import { eventId, toDto, type EventRow } from './types.ts';

export interface DispatcherOptions {
  db: Database;
  logger: Logger;
  policy: TargetPolicy;
  /** WEBHOOK_TIMEOUT_MS: one attempt's whole exchange. */
  timeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE_MS: the waits after the 1st, 2nd, … failed attempt; the last repeats. */
  retryScheduleMs: readonly number[];
  /** WEBHOOK_RETRY_WINDOW_MS: past this since the event, a failed attempt is the last (marked failed). */
  retryWindowMs: number;
  /** WEBHOOK_POLL_MS: how often due deliveries are looked for. */
  pollMs: number;
  /** Deliveries claimed (and sent in parallel) per round. */
  batch?: number;
  /** Days events are kept (the feed's reach); default 30. */
  retentionDays?: number;
}

export interface Dispatcher {
  /** Look for due deliveries now (after this process wrote an event) instead of at the next poll. */
  wake(): void;
  /** Stops claiming and waits for the attempts in flight (their outcome is recorded). */
  close(): Promise<void>;
}

interface Claimed extends EventRow {
  endpoint_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
}

/** Between retention sweeps (events older than retentionDays). */
const SWEEP_MS = 3_600_000;

/**
 * Delivers the outbox. Every gateway runs one; they share the work through the database: a round
 * claims due deliveries with FOR UPDATE SKIP LOCKED and moves their next_attempt_at past the
 * attempt's longest duration (a lease), so no other gateway sends the same delivery while this one
 * does; one that dies mid-attempt leaves the delivery to be taken again once the lease ends (at
 * least once, the same webhook-id). Runs beside the HTTP server, never inside a request.
 */
export function startDispatcher(opts: DispatcherOptions): Dispatcher {
  const { db, logger } = opts;
  const batch = opts.batch ?? 10;
  // twice the attempt's own bound: its timer covers resolution, connection and answer
  const leaseMs = 2 * opts.timeoutMs;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let lastSweep = 0;
  let failedRounds = 0;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  };

  function run(): void {
    timer = null;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .then((full) => {
        if (failedRounds > 0) logger.info({ failedRounds }, 'webhooks: delivery rounds work again');
        failedRounds = 0;
        return full ? 0 : opts.pollMs;
      })
      .catch((err: unknown) => {
        // a database outage fails every poll: the first failure and then one a minute or so are enough
        failedRounds++;
        if (failedRounds === 1 || failedRounds % Math.max(1, Math.round(60_000 / opts.pollMs)) === 0) {
          logger.error({ err, failedRounds }, 'webhooks: a delivery round failed; retrying at the next poll');
        }
        return opts.pollMs;
      })
      .then((next) => {
        running = null;
        const wait = again ? 0 : next;
        again = false;
        schedule(wait);
      });
  }

  /** One round; true when it claimed a full batch (more may be due). */
  async function round(): Promise<boolean> {
    if (Date.now() - lastSweep > SWEEP_MS) {
      lastSweep = Date.now();
      await sweep();
    }
    const claimed = await db.query<Claimed>(
      `WITH due AS (
         SELECT d.event_seq, d.endpoint_id FROM webhook_deliveries d
           JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.disabled_at IS NULL
          WHERE d.status = 'pending' AND d.next_attempt_at <= now()
          ORDER BY d.next_attempt_at LIMIT $1
          FOR UPDATE OF d SKIP LOCKED),
       taken AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_attempt_at = now(),
                next_attempt_at = now() + $2::double precision * interval '1 millisecond'
           FROM due WHERE d.event_seq = due.event_seq AND d.endpoint_id = due.endpoint_id
         RETURNING d.event_seq, d.endpoint_id, d.attempts)
       SELECT e.seq::text AS seq, e.org_id, e.type, e.data, e.created_at, t.endpoint_id, t.attempts, w.url, w.secret,
              CASE WHEN w.previous_expires_at > now() THEN w.previous_secret END AS previous_secret
         FROM taken t JOIN events e ON e.seq = t.event_seq JOIN webhook_endpoints w ON w.id = t.endpoint_id`,
      [batch, leaseMs],
    );
    await Promise.all(claimed.map(attempt));
    return claimed.length === batch;
  }

  async function attempt(c: Claimed): Promise<void> {
    const id = eventId(c.seq);
    const body = JSON.stringify(toDto(c));
    const secrets = c.previous_secret ? [c.secret, c.previous_secret] : [c.secret];
    const headers = signatureHeaders(id, Math.floor(Date.now() / 1000), body, secrets);
    const result = await postWebhook({ url: c.url, headers, body, timeoutMs: opts.timeoutMs, policy: opts.policy });
    const log = { event: id, type: c.type, endpoint: c.endpoint_id, target: origin(c.url), attempt: c.attempts, status: result.status, error: result.error, response: result.response || undefined };
    try {
      await record(c, result);
    } catch (err) {
      // the lease ends and the delivery is tried again: at least once
      logger.error({ err, ...log }, 'webhooks: recording a delivery attempt failed');
      return;
    }
    if (result.status !== null && result.status >= 200 && result.status < 300) logger.info(log, 'webhooks: delivered');
    else if (result.status === 410) logger.warn(log, 'webhooks: the receiver answered 410 Gone; endpoint disabled');
    else logger.warn(log, 'webhooks: delivery attempt failed; retrying later unless its retry window is over');
  }

  async function record(c: Claimed, r: PostResult): Promise<void> {
    // every update is of this attempt only (attempts unchanged): after a lost lease, another gateway's claim wins
    const key = [c.seq, c.endpoint_id, c.attempts];
    const fields = [r.status, r.error, r.response];
    if (r.status !== null && r.status >= 200 && r.status < 300) {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', last_status = $4, last_error = $5, last_response = $6
          WHERE event_seq = $1::bigint AND endpoint_id = $2 AND attempts = $3`,
        [...key, ...fields],
      );
      return;
    }
    if (r.status === 410) {
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'the receiver answered 410 Gone' WHERE id = $1 AND disabled_at IS NULL`, [c.endpoint_id]);
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'failed', last_status = $4, last_error = $5, last_response = $6
            WHERE event_seq = $1::bigint AND endpoint_id = $2 AND attempts = $3`,
          [...key, ...fields],
        );
        await tx.query(`UPDATE webhook_deliveries SET status = 'failed', last_error = 'endpoint disabled' WHERE endpoint_id = $1 AND status = 'pending'`, [c.endpoint_id]);
      });
      return;
    }
    const waitMs = backoff(c.attempts);
    await db.query(
      `UPDATE webhook_deliveries
          SET last_status = $4, last_error = $5, last_response = $6,
              next_attempt_at = now() + $7::double precision * interval '1 millisecond',
              status = CASE WHEN now() + $7::double precision * interval '1 millisecond' > created_at + $8::double precision * interval '1 millisecond'
                            THEN 'failed' ELSE 'pending' END
        WHERE event_seq = $1::bigint AND endpoint_id = $2 AND attempts = $3`,
      [...key, ...fields, waitMs, opts.retryWindowMs],
    );
  }

  /** The wait after the n-th failed attempt, with ±20 % jitter so receivers that failed together are not retried together. */
  function backoff(attempts: number): number {
    const s = opts.retryScheduleMs;
    const base = s[Math.min(attempts, s.length) - 1] ?? s[s.length - 1]!;
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  async function sweep(): Promise<void> {
    const days = opts.retentionDays ?? 30;
    await db.query(`DELETE FROM events WHERE created_at < now() - make_interval(days => $1)`, [days]);
    // a month's guard rows are needed until it ends; two months back is past any clock skew
    await db.query(`DELETE FROM quota_thresholds WHERE month < to_char(now() - interval '62 days', 'YYYY-MM')`);
  }

  schedule(0);
  return {
    wake: () => schedule(0),
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

function origin(url: string): string {
  try {
    return new URL(url).origin; // a path or query could carry the receiver's own token
  } catch {
    return '(invalid url)';
  }
}
