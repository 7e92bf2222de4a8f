-- Browser origins an organisation's web pages call /v1 from (CORS, gateway/http/cors.ts), each a
-- serialised origin such as https://app.example.com; empty: only the gateway's CORS_ALLOWED_ORIGINS.
ALTER TABLE contracts ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}';
