-- The customer dashboard (docs/dashboard.md) and per-day usage (GET /v1/usage) ---------------------

-- A member may set a password (argon2id, PHC string); until then they sign in with links.
ALTER TABLE members ADD COLUMN password_hash text;
-- The password sign-in finds a member by email alone (an email may be a member of several organisations).
CREATE INDEX members_email ON members (lower(email));

-- Written behind by the usage recorder (at most a second late), never on the request path.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- Single-use, short-lived sign-in links: only a SHA-256 of the token is stored.
CREATE TABLE sign_in_links (
  token_hash text PRIMARY KEY,
  member_id  text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX sign_in_links_member ON sign_in_links (member_id);

-- Dashboard sessions: the cookie holds a random id, the row its SHA-256. A ban deletes the rows of
-- the organisation; the lookup also refuses while any member of it is banned.
CREATE TABLE dashboard_sessions (
  id_hash      text PRIMARY KEY,
  member_id    text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  org_id       text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);
CREATE INDEX dashboard_sessions_org ON dashboard_sessions (org_id);
CREATE INDEX dashboard_sessions_member ON dashboard_sessions (member_id);

-- Admitted /v1 calls per (organisation, key, kind, UTC day). key_id NULL: the dashboard playground.
CREATE TABLE usage_daily (
  org_id   text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  key_id   text REFERENCES api_keys(id) ON DELETE CASCADE,
  kind     text NOT NULL CHECK (kind IN ('catalog', 'search', 'image', 'batch', 'account')),
  day      date NOT NULL,
  requests integer NOT NULL CHECK (requests >= 0)
);
CREATE UNIQUE INDEX usage_daily_org_key_kind_day ON usage_daily (org_id, (COALESCE(key_id, '')), kind, day);
