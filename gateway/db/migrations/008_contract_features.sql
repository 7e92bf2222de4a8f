-- Features a contract includes beyond the spec's image calls (gateway/contract-features.ts), e.g.
-- 'spin' for GET /v1/vehicles/{id}/spin; empty: none. A column beside allowed_formats, which it is
-- read and written with, rather than a table: a handful of names, always read whole with the contract.
ALTER TABLE contracts ADD COLUMN features text[] NOT NULL DEFAULT '{}';
