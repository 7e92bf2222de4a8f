-- Events (docs/events.md): the outbox every change writes in its own transaction, the webhook
-- endpoints of an organisation and one delivery row per (event, endpoint).

-- Ids are handed out under a transaction-scoped advisory lock (gateway/events/outbox.ts), so they
-- become visible in their order: a poller reading "after id N" never misses a later-committed lower id.
CREATE SEQUENCE events_seq;

CREATE TABLE events (
  seq        bigint PRIMARY KEY,
  org_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type       text NOT NULL,
  data       jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX events_org_seq ON events (org_id, seq);
CREATE INDEX events_created ON events (created_at);

-- A quota threshold fires once per organisation, month and threshold, whatever the number of
-- gateways flushing usage: the primary key decides which flush writes the event.
CREATE TABLE quota_thresholds (
  org_id    text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  month     text NOT NULL,
  threshold integer NOT NULL,
  PRIMARY KEY (org_id, month, threshold)
);

-- The secret is kept as given out (whsec_…): signing needs it. previous_secret signs too until
-- previous_expires_at (a rotation's overlap).
CREATE TABLE webhook_endpoints (
  id                  text PRIMARY KEY,
  org_id              text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url                 text NOT NULL,
  events              text[] NOT NULL DEFAULT '{}',
  secret              text NOT NULL,
  previous_secret     text,
  previous_expires_at timestamptz,
  disabled_at         timestamptz,
  disabled_reason     text,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id);

-- next_attempt_at doubles as the lease: a claimed delivery's is moved past its timeout, so another
-- gateway takes it only if this one died with it.
CREATE TABLE webhook_deliveries (
  event_seq       bigint NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  last_status     integer,
  last_error      text,
  last_response   text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_seq, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, event_seq);
