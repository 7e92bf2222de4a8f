import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import { randomId } from '../catalog/ids.ts';
import type { Database } from '../db/database.ts';
import { newWebhookSecret } from './signing.ts';
import { TargetRefused, checkTarget, type TargetPolicy } from './target-safety.ts';
import { eventId, type EventType } from './types.ts';

/** Endpoints one organisation may have. */
export const MAX_ENDPOINTS = 5;
/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_HOURS = 24;

export interface EndpointDto {
  id: string;
  url: string;
  events: EventType[];
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
}

interface EndpointRow {
  id: string;
  org_id: string;
  url: string;
  events: EventType[];
  created_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const toDto = (r: EndpointRow): EndpointDto => ({
  id: r.id,
  url: r.url,
  events: r.events,
  created_at: r.created_at.toISOString(),
  disabled_at: r.disabled_at?.toISOString() ?? null,
  disabled_reason: r.disabled_reason,
});

const notFound = () => new ServiceError('not_found', 'Webhook endpoint not found');

/** An organisation's webhook endpoints: the admin API's and the dashboard's one implementation. */
export class WebhookEndpoints {
  constructor(
    private readonly db: Database,
    private readonly policy: TargetPolicy,
  ) {}

  async create(orgId: string, url: string, events: EventType[]): Promise<EndpointDto & { secret: string }> {
    try {
      await checkTarget(url, this.policy);
    } catch (err) {
      if (err instanceof TargetRefused) throw new ServiceError('bad_request', MESSAGES.webhookTargetRefused(err.message));
      throw err;
    }
    const id = randomId('whk');
    const secret = newWebhookSecret();
    const row = await this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      // the organisation's row serialises creations, so two at once cannot both take the last place
      const org = await tx.query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
      if (!org[0]) throw new ServiceError('not_found', 'Organization not found');
      const [n] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1', [orgId]);
      if ((n?.n ?? 0) >= MAX_ENDPOINTS) throw new ServiceError('forbidden', MESSAGES.tooManyWebhooks(MAX_ENDPOINTS));
      const [r] = await tx.query<EndpointRow>(
        `INSERT INTO webhook_endpoints (id, org_id, url, events, secret) VALUES ($1, $2, $3, $4::text[], $5)
         RETURNING id, org_id, url, events, created_at, disabled_at, disabled_reason`,
        [id, orgId, url, [...new Set(events)], secret],
      );
      return r!;
    });
    return { ...toDto(row), secret };
  }

  async list(orgId: string, opts: { requireOrg?: boolean } = {}): Promise<EndpointDto[]> {
    if (opts.requireOrg) {
      const org = await this.db.query('SELECT 1 FROM organizations WHERE id = $1', [orgId]);
      if (!org[0]) throw new ServiceError('not_found', 'Organization not found');
    }
    const rows = await this.db.query<EndpointRow>(
      'SELECT id, org_id, url, events, created_at, disabled_at, disabled_reason FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id',
      [orgId],
    );
    return rows.map(toDto);
  }

  /** `orgId` null: the operator's call, any organisation's endpoint; else only that organisation's. */
  async remove(id: string, orgId: string | null): Promise<{ id: string; deleted: true }> {
    const rows = await this.db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND ($2::text IS NULL OR org_id = $2) RETURNING id', [id, orgId]);
    if (!rows[0]) throw notFound();
    return { id, deleted: true };
  }

  /** A new secret; the current one keeps signing beside it for ROTATION_OVERLAP_HOURS. */
  async rotateSecret(id: string, orgId: string | null): Promise<{ id: string; secret: string; previous_secret_expires_at: string }> {
    const secret = newWebhookSecret();
    const rows = await this.db.query<{ previous_expires_at: Date }>(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = $3,
              previous_expires_at = now() + make_interval(hours => $4)
        WHERE id = $1 AND ($2::text IS NULL OR org_id = $2) RETURNING previous_expires_at`,
      [id, orgId, secret, ROTATION_OVERLAP_HOURS],
    );
    if (!rows[0]) throw notFound();
    return { id, secret, previous_secret_expires_at: rows[0].previous_expires_at.toISOString() };
  }

  /** The endpoint's latest deliveries, newest first (the dashboard's delivery log). */
  async deliveries(id: string, orgId: string | null, limit = 50) {
    const ep = await this.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND ($2::text IS NULL OR org_id = $2)', [id, orgId]);
    if (!ep[0]) throw notFound();
    const rows = await this.db.query<{
      event_seq: string; type: string; status: string; attempts: number; last_attempt_at: Date | null; last_status: number | null; last_error: string | null; next_attempt_at: Date;
    }>(
      `SELECT d.event_seq::text AS event_seq, e.type, d.status, d.attempts, d.last_attempt_at, d.last_status, d.last_error, d.next_attempt_at
         FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
        WHERE d.endpoint_id = $1 ORDER BY d.event_seq DESC LIMIT $2`,
      [id, limit],
    );
    return rows.map((r) => ({
      event_id: eventId(r.event_seq),
      type: r.type,
      status: r.status,
      attempts: r.attempts,
      last_attempt_at: r.last_attempt_at?.toISOString() ?? null,
      last_status: r.last_status,
      last_error: r.last_error,
      next_attempt_at: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
    }));
  }
}
