import path from 'node:path';
import { z } from 'zod';
import { APP_ROOT, emptyAsUndefined, optionalString, port, metricsPort, TIMER_MAX, positiveInt, GRACE_MAX_MS, serverUrl, grpcTargets, logLevel, RENDER_BACKENDS, parseKeyedSecrets, parseConfig } from '../shared/config-fields.ts';
import { parseOriginList } from '../shared/origins.ts';

/** The gateway's configuration: its environment, validated and turned into settings once, at start (docs in README, "Configuration"). */
const gatewaySchema = z
  .object({
  PORT: port(8080),
  HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.data')),
  ASSETS_DIR: optionalString,
  DATABASE_URL: serverUrl('PostgreSQL', ['postgres:', 'postgresql:']),
  DATABASE_CONNECT_TIMEOUT_MS: positiveInt(5_000),
  // the client's own timer is this plus 2 s (gateway/db/postgres.ts): both must be valid timers
  DATABASE_QUERY_TIMEOUT_MS: positiveInt(10_000, TIMER_MAX - 2_000),
  REDIS_URL: serverUrl('Redis', ['redis:', 'rediss:']),
  RENDERER_ADDR: grpcTargets,
  RENDERER_OUTAGE_WAIT_MS: positiveInt(6_000),
  RENDER_BACKEND: z.preprocess(emptyAsUndefined, z.enum(RENDER_BACKENDS).default('auto')),
  PUBLIC_BASE_URL: optionalString,
  ADMIN_TOKEN: optionalString,
  IMAGE_SIGNING_KEYS: optionalString,
  API_KEY_HASH_SECRETS: optionalString,
  IMAGE_URL_TTL_SECONDS: positiveInt(86_400),
  RENDER_TIMEOUT_MS: positiveInt(15_000),
  USAGE_FLUSH_MS: positiveInt(2_000),
  AUTH_CACHE_TTL_MS: positiveInt(4_000),
  ADMIN_BODY_LIMIT_KB: positiveInt(8),
  CATALOG_IMPORT_LIMIT_MB: positiveInt(20),
  MAX_COMPRESSION_RATIO: positiveInt(50),
  BODY_TIMEOUT_MS: positiveInt(10_000),
  IMPORT_BODY_TIMEOUT_MS: positiveInt(120_000),
  HEADERS_TIMEOUT_MS: positiveInt(10_000),
  DOWNLOAD_CONCURRENT_RENDERS: positiveInt(4),
  DOWNLOAD_RENDERS_PER_MINUTE: positiveInt(120),
  DOWNLOAD_QUEUED_RENDERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(1000).default(16)),
  DOWNLOAD_QUEUE_WAIT_MS: positiveInt(10_000),
  IMAGE_CACHE_MAX_AGE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(86_400).default(60)),
  SEED_DEMO: z.preprocess(emptyAsUndefined, z.enum(['auto', 'true', 'false']).default('auto')),
  LOG_LEVEL: logLevel,
  METRICS_PORT: metricsPort(9464),
  METRICS_HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  SHUTDOWN_GRACE_MS: positiveInt(10_000, GRACE_MAX_MS),
  ADMIN_AUTH_FAILURES_PER_MINUTE: positiveInt(20),
  DASHBOARD_DIST_DIR: optionalString,
  DASHBOARD_LINK_TTL_SECONDS: positiveInt(900),
  DASHBOARD_SESSION_IDLE_SECONDS: positiveInt(43_200),
  DASHBOARD_SESSION_MAX_SECONDS: positiveInt(604_800),
  DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: positiveInt(20),
  DASHBOARD_SIGN_IN_FAILURES_PER_EMAIL: positiveInt(5),
  DASHBOARD_SIGN_IN_WINDOW_SECONDS: positiveInt(900),
  USAGE_DAILY_FLUSH_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(50).max(1000).default(1000)),
  CORS_ALLOWED_ORIGINS: optionalString,
  WEBHOOK_TIMEOUT_MS: positiveInt(10_000, 300_000),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false')),
  WEBHOOK_RETRY_SCHEDULE_MS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default('5000,30000,120000,600000,3600000,21600000')
      .refine((s) => s.split(',').every((p) => /^\s*\d+\s*$/.test(p) && Number(p) >= 1 && Number(p) <= TIMER_MAX), 'must be waits in milliseconds, comma separated (each 1 or more)'),
  ),
  WEBHOOK_RETRY_WINDOW_MS: positiveInt(86_400_000),
  WEBHOOK_POLL_MS: positiveInt(1_000, 3_600_000),
}).transform((e, ctx) => {
    const problem = (variable: string, message: string) => {
      ctx.addIssue({ code: 'custom', path: [variable], message });
      return z.NEVER;
    };
    if (e.ADMIN_TOKEN !== undefined && e.ADMIN_TOKEN.length < 16) return problem('ADMIN_TOKEN', 'must be at least 16 characters');
    if (e.PUBLIC_BASE_URL !== undefined && !URL.canParse(e.PUBLIC_BASE_URL)) return problem('PUBLIC_BASE_URL', 'must be an absolute URL');
    let corsAllowedOrigins: string[] = [];
    try {
      corsAllowedOrigins = parseOriginList(e.CORS_ALLOWED_ORIGINS ?? '');
    } catch (err) {
      return problem('CORS_ALLOWED_ORIGINS', (err as Error).message);
    }
    return {
      port: e.PORT,
      host: e.HOST,
      dataDir: path.resolve(e.DATA_DIR),
      /** The asset sets the renderer serves: the catalog import reads their set.json here. */
      assetsDir: path.resolve(e.ASSETS_DIR ?? path.join(APP_ROOT, 'assets')),
      databaseUrl: e.DATABASE_URL ?? null,
      /** How long a PostgreSQL connection may take to open, and a query to answer, before it fails. */
      databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
      redisUrl: e.REDIS_URL ?? null,
      rendererAddr: e.RENDERER_ADDR ?? null,
      /** With every renderer down for this long, image downloads answer 503 at once instead of waiting for one. */
      rendererOutageWaitMs: e.RENDERER_OUTAGE_WAIT_MS,
      renderBackend: e.RENDER_BACKEND,
      // null: derived from the bound port once listening
      publicBaseUrl: e.PUBLIC_BASE_URL ? e.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
      adminToken: e.ADMIN_TOKEN ?? null,
      // null: generated into DATA_DIR
      imageSigningKeys: e.IMAGE_SIGNING_KEYS ? parseKeyedSecrets('IMAGE_SIGNING_KEYS', e.IMAGE_SIGNING_KEYS) : null,
      // null: generated into DATA_DIR
      apiKeyHashSecrets: e.API_KEY_HASH_SECRETS
        ? parseKeyedSecrets('API_KEY_HASH_SECRETS', e.API_KEY_HASH_SECRETS)
        : null,
      imageUrlTtlSeconds: e.IMAGE_URL_TTL_SECONDS,
      renderTimeoutMs: e.RENDER_TIMEOUT_MS,
      usageFlushMs: e.USAGE_FLUSH_MS,
      authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
      /** Body limits and timeouts of the admin API (docs/limits.md, "Request bodies"). */
      adminBodyLimitBytes: e.ADMIN_BODY_LIMIT_KB * 1024,
      catalogImportLimitBytes: e.CATALOG_IMPORT_LIMIT_MB * 1024 * 1024,
      maxCompressionRatio: e.MAX_COMPRESSION_RATIO,
      bodyTimeoutMs: e.BODY_TIMEOUT_MS,
      importBodyTimeoutMs: e.IMPORT_BODY_TIMEOUT_MS,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      /** The per-organisation guard on image downloads (docs/limits.md, "Image downloads"). */
      downloadConcurrentRenders: e.DOWNLOAD_CONCURRENT_RENDERS,
      downloadRendersPerMinute: e.DOWNLOAD_RENDERS_PER_MINUTE,
      /** Downloads of one organisation that may wait for a render slot (0: none wait, 429 at once). */
      downloadQueuedRenders: e.DOWNLOAD_QUEUED_RENDERS,
      /** How long one of them waits at most before 429. */
      downloadQueueWaitMs: e.DOWNLOAD_QUEUE_WAIT_MS,
      /** Longest Cache-Control max-age of a downloaded image (how long a CDN may serve a grant unchecked). */
      imageCacheMaxAgeSeconds: e.IMAGE_CACHE_MAX_AGE_SECONDS,
      seedDemo: e.SEED_DEMO,
      logLevel: e.LOG_LEVEL,
      /** Internal Prometheus port (GET /metrics), never the public one; null: off. */
      metricsPort: e.METRICS_PORT,
      metricsHost: e.METRICS_HOST,
      /** On SIGTERM: how long requests in flight may take to finish before connections are cut. */
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
      /** Failed admin authentications per client address and minute before 429. */
      adminAuthFailuresPerMinute: e.ADMIN_AUTH_FAILURES_PER_MINUTE,
      /** The customer dashboard (docs/dashboard.md): built pages, sign-in links, sessions, sign-in throttle. */
      dashboard: {
        /** null: dashboard/dist of the checkout. */
        distDir: e.DASHBOARD_DIST_DIR ? path.resolve(e.DASHBOARD_DIST_DIR) : null,
        linkTtlSeconds: e.DASHBOARD_LINK_TTL_SECONDS,
        sessionIdleSeconds: e.DASHBOARD_SESSION_IDLE_SECONDS,
        sessionMaxSeconds: e.DASHBOARD_SESSION_MAX_SECONDS,
        signInFailuresPerAddress: e.DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS,
        signInFailuresPerEmail: e.DASHBOARD_SIGN_IN_FAILURES_PER_EMAIL,
        signInWindowSeconds: e.DASHBOARD_SIGN_IN_WINDOW_SECONDS,
      },
      /** How often the per-day usage counts (GET /v1/usage) are written behind; at most 1000. */
      usageDailyFlushMs: e.USAGE_DAILY_FLUSH_MS,
      corsAllowedOrigins,
      /** Webhook delivery (docs/events.md). */
      webhooks: {
        /** One attempt's whole exchange (resolution, connection, answer). */
        timeoutMs: e.WEBHOOK_TIMEOUT_MS,
        /** http and private, loopback and link-local targets allowed (development and tests only). */
        allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
        /** The waits after the 1st, 2nd, … failed attempt (jittered ±20 %); the last repeats. */
        retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map((p) => Number(p.trim())),
        /** An event's deliveries are retried for this long, then marked failed. */
        retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
        /** How often each gateway looks for due deliveries. */
        pollMs: e.WEBHOOK_POLL_MS,
      },
    };
  });

export type GatewayConfig = z.output<typeof gatewaySchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return parseConfig(gatewaySchema, env);
}
