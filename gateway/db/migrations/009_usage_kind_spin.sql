-- The spin call (GET /v1/vehicles/{vehicle_id}/spin) is a usage kind of its own (gateway/usage/kinds.ts).
ALTER TABLE usage_daily DROP CONSTRAINT IF EXISTS usage_daily_kind_check;
ALTER TABLE usage_daily ADD CONSTRAINT usage_daily_kind_check CHECK (kind IN ('catalog', 'search', 'image', 'batch', 'spin', 'account'));
