-- Catalog ---------------------------------------------------------------------------------------
CREATE TABLE categories (
  id   text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL
);

CREATE TABLE makes (
  id   text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL
);

CREATE TABLE models (
  id      text PRIMARY KEY,
  make_id text NOT NULL REFERENCES makes(id) ON DELETE CASCADE,
  slug    text NOT NULL,
  name    text NOT NULL,
  UNIQUE (make_id, slug)
);

-- One row per (model, year, variant). variant_slug is NULL when the year has no variant distinction.
CREATE TABLE vehicles (
  id           text PRIMARY KEY,
  model_id     text NOT NULL REFERENCES models(id) ON DELETE CASCADE,
  year         integer NOT NULL CHECK (year BETWEEN 1886 AND 2100),
  variant_slug text,
  variant_name text,
  category_id  text NOT NULL REFERENCES categories(id),
  asset_set    text NOT NULL,
  published    boolean NOT NULL DEFAULT true,
  CHECK ((variant_slug IS NULL) = (variant_name IS NULL))
);
CREATE UNIQUE INDEX vehicles_model_year_variant ON vehicles (model_id, year, COALESCE(variant_slug, ''));
CREATE INDEX vehicles_category ON vehicles (category_id) WHERE published;

-- shadow / plate_quad are copied from the asset set so the gateway can warn without the renderer.
CREATE TABLE vehicle_views (
  vehicle_id text NOT NULL REFERENCES vehicles(id) ON DELETE CASCADE,
  view       text NOT NULL CHECK (view IN ('front_left','front','front_right','side_right','rear_right','rear','rear_left','side_left','top_down')),
  published  boolean NOT NULL DEFAULT true,
  shadow     boolean NOT NULL,
  plate_quad jsonb,
  asset_set  text NOT NULL,
  asset_view text NOT NULL,
  asset_revision text NOT NULL,
  width      integer NOT NULL,
  height     integer NOT NULL,
  PRIMARY KEY (vehicle_id, view)
);

-- Normalised (lower-case, accents stripped) tokens of make, model, variant and year, one row each.
-- Collation "C" makes a btree range scan serve prefix matches.
CREATE TABLE search_terms (
  term       text COLLATE "C" NOT NULL,
  vehicle_id text NOT NULL REFERENCES vehicles(id) ON DELETE CASCADE,
  field      smallint NOT NULL, -- 1 make, 2 model, 3 variant, 4 year
  PRIMARY KEY (term, vehicle_id, field)
);
CREATE INDEX search_terms_vehicle ON search_terms (vehicle_id);

-- Organisations, contracts, keys ------------------------------------------------------------------
CREATE TABLE organizations (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE members (
  id         text PRIMARY KEY,
  org_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email      text NOT NULL,
  banned     boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX members_org_email ON members (org_id, lower(email));
CREATE INDEX members_banned ON members (org_id) WHERE banned;

CREATE TABLE contracts (
  org_id          text PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  allowed_formats text[] NOT NULL,
  rpm_limit       integer NOT NULL CHECK (rpm_limit > 0),
  monthly_quota   integer NOT NULL CHECK (monthly_quota >= 0),
  active          boolean NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE contract_categories (
  org_id      text NOT NULL REFERENCES contracts(org_id) ON DELETE CASCADE,
  category_id text NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
  PRIMARY KEY (org_id, category_id)
);

-- Only a keyed hash of each key is stored; secret_id names the HMAC secret that made it (rotation).
CREATE TABLE api_keys (
  id         text PRIMARY KEY,
  org_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name       text,
  prefix     text NOT NULL,
  key_hash   text NOT NULL UNIQUE,
  secret_id  text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_org ON api_keys (org_id);

-- Write-through copy of the limiter's monthly counters (UTC month 'YYYY-MM').
CREATE TABLE monthly_usage (
  org_id   text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  month    text NOT NULL,
  requests integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, month)
);

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);
