import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseOriginList } from './origins.ts';

/**
 * Configuration is read from the environment once, at start, by each process's composition root,
 * and validated here so that a typo fails the start with a message naming the variable.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The application root (the checkout, or dist/ when compiled): its assets/ is the default ASSETS_DIR of the gateway. */
const APP_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const emptyAsUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const PORT_MESSAGE = 'must be a port number from 0 to 65535 (0: any free port)';
const portNumber = () => z.coerce.number({ error: PORT_MESSAGE }).int({ error: PORT_MESSAGE }).min(0, { error: PORT_MESSAGE }).max(65535, { error: PORT_MESSAGE });
const port = (def: number) => z.preprocess(emptyAsUndefined, portNumber().default(def));
/** A port, 0 for a free one, or `off` (null): the internal Prometheus listener. */
const metricsPort = (def: number) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .union([z.literal('off').transform(() => null), portNumber()], { error: `${PORT_MESSAGE}, or off` })
      .default(def),
  );
/** The longest delay a Node timer takes (2^31 − 1 ms): a longer one fires at once. */
const TIMER_MAX = 2_147_483_647;
/** A whole number from 1 to `max`, in plain words when it is not (a bare NaN or ">=1" helps nobody). */
const positiveInt = (def: number, max = TIMER_MAX) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(max, { error: `must be at most ${max}` })
      .default(def),
  );
/** Grace periods: an hour is far past any sensible drain, and keeps their sums with the flushes a valid timer. */
const GRACE_MAX_MS = 3_600_000;

/** A URL of one of `protocols` with a host (a typo such as `redis//host` is not taken for a host name). */
const serverUrl = (what: string, protocols: readonly string[]) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((s) => {
        try {
          const u = new URL(s);
          return protocols.includes(u.protocol) && (u.hostname !== '' || u.searchParams.has('host'));
        } catch {
          return false;
        }
      }, `must be a ${what} URL (${protocols.map((p) => `${p}//…`).join(' or ')}) with a host and a numeric port if any`)
      .optional(),
  );

/**
 * gRPC targets, comma separated: `host:port` (a name as containers and Compose write them, IPv4, or
 * [IPv6] with a zone id), or a `dns:`, `ipv4:`, `ipv6:` or `unix:` target as grpc-js takes them.
 */
const TARGET_RE = /^(?:(?:dns|ipv4|ipv6|unix|unix-abstract):\S+|[A-Za-z0-9._-]+:(\d{1,5})|\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]:(\d{1,5}))$/;
function isGrpcTarget(t: string): boolean {
  const m = TARGET_RE.exec(t.trim());
  if (!m) return false;
  const port = m[1] ?? m[2];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}
const grpcTargets = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    // empty entries (a trailing comma) are skipped, as the client's parseAddresses skips them
    .refine((s) => {
      const targets = s.split(',').filter((t) => t.trim() !== '');
      return targets.length > 0 && targets.every(isGrpcTarget);
    }, 'must be host:port[,host:port…] (or a dns:, ipv4:, ipv6: or unix: target)')
    .optional(),
);

export const RENDER_BACKENDS = ['auto', 'gl', 'cpu'] as const;
export type RenderBackendChoice = (typeof RENDER_BACKENDS)[number];

const logLevel = z.preprocess(
  emptyAsUndefined,
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
);

/**
 * Secrets with ids, `id:secret[,id:secret…]`; the first signs, all verify (rotation). Secrets are
 * base64url or hex of at least 32 bytes, or raw text of at least 32 characters.
 */
export interface KeyedSecret {
  id: string;
  secret: Buffer;
}

export function parseKeyedSecrets(name: string, raw: string): KeyedSecret[] {
  const out: KeyedSecret[] = [];
  for (const part of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const idx = part.indexOf(':');
    if (idx <= 0) throw new ConfigError(`${name}: each entry must be id:secret`);
    const id = part.slice(0, idx);
    const text = part.slice(idx + 1);
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(id)) throw new ConfigError(`${name}: invalid key id "${id}"`);
    const secret = decodeSecret(text);
    if (secret.length < 32) {
      throw new ConfigError(`${name}: secret "${id}" is shorter than 32 bytes`);
    }
    out.push({ id, secret });
  }
  if (out.length === 0) throw new ConfigError(`${name}: no secrets given`);
  return out;
}

function decodeSecret(text: string): Buffer {
  if (/^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0 && text.length >= 64) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9_-]+={0,2}$/.test(text) && text.length >= 43) return Buffer.from(text, 'base64url');
  return Buffer.from(text, 'utf8');
}

const gatewaySchema = z.object({
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
});

export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  /** The asset sets the renderer serves: the catalog import reads their set.json here. */
  assetsDir: string;
  databaseUrl: string | null;
  /** How long a PostgreSQL connection may take to open, and a query to answer, before it fails. */
  databaseConnectTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  redisUrl: string | null;
  /** With every renderer down for this long, image downloads answer 503 at once instead of waiting for one. */
  rendererOutageWaitMs: number;
  rendererAddr: string | null;
  renderBackend: RenderBackendChoice;
  publicBaseUrl: string | null; // null: derived from the bound port once listening
  adminToken: string | null;
  imageSigningKeys: KeyedSecret[] | null; // null: generated into DATA_DIR
  apiKeyHashSecrets: KeyedSecret[] | null; // null: generated into DATA_DIR
  imageUrlTtlSeconds: number;
  renderTimeoutMs: number;
  usageFlushMs: number;
  authCacheTtlMs: number;
  /** Body limits and timeouts of the admin API (docs/limits.md, "Request bodies"). */
  adminBodyLimitBytes: number;
  catalogImportLimitBytes: number;
  maxCompressionRatio: number;
  bodyTimeoutMs: number;
  importBodyTimeoutMs: number;
  headersTimeoutMs: number;
  /** The per-organisation guard on image downloads (docs/limits.md, "Image downloads"). */
  downloadConcurrentRenders: number;
  downloadRendersPerMinute: number;
  /** Downloads of one organisation that may wait for a render slot (0: none wait, 429 at once). */
  downloadQueuedRenders: number;
  /** How long one of them waits at most before 429. */
  downloadQueueWaitMs: number;
  /** Longest Cache-Control max-age of a downloaded image (how long a CDN may serve a grant unchecked). */
  imageCacheMaxAgeSeconds: number;
  seedDemo: 'auto' | 'true' | 'false';
  logLevel: string;
  /** Internal Prometheus port (GET /metrics), never the public one; null: off. */
  metricsPort: number | null;
  metricsHost: string;
  /** On SIGTERM: how long requests in flight may take to finish before connections are cut. */
  shutdownGraceMs: number;
  /** Failed admin authentications per client address and minute before 429. */
  adminAuthFailuresPerMinute: number;
  /** The customer dashboard (docs/dashboard.md): built pages, sign-in links, sessions, sign-in throttle. */
  dashboard: {
    /** null: dashboard/dist of the checkout. */
    distDir: string | null;
    linkTtlSeconds: number;
    sessionIdleSeconds: number;
    sessionMaxSeconds: number;
    signInFailuresPerAddress: number;
    signInFailuresPerEmail: number;
    signInWindowSeconds: number;
  };
  /** How often the per-day usage counts (GET /v1/usage) are written behind; at most 1000. */
  usageDailyFlushMs: number;
  /** Origins whose pages may call /v1 for every organisation (CORS), besides each contract's own list. */
  corsAllowedOrigins: string[];
  /** Webhook delivery (docs/events.md). */
  webhooks: {
    /** One attempt's whole exchange (resolution, connection, answer). */
    timeoutMs: number;
    /** http and private, loopback and link-local targets allowed (development and tests only). */
    allowPrivateTargets: boolean;
    /** The waits after the 1st, 2nd, … failed attempt (jittered ±20 %); the last repeats. */
    retryScheduleMs: number[];
    /** An event's deliveries are retried for this long, then marked failed. */
    retryWindowMs: number;
    /** How often each gateway looks for due deliveries. */
    pollMs: number;
  };
}

function fail(err: z.ZodError): never {
  const lines = err.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = gatewaySchema.safeParse(env);
  if (!parsed.success) fail(parsed.error);
  const e = parsed.data;
  if (e.ADMIN_TOKEN !== undefined && e.ADMIN_TOKEN.length < 16) {
    throw new ConfigError('ADMIN_TOKEN: must be at least 16 characters');
  }
  if (e.PUBLIC_BASE_URL !== undefined) {
    try {
      new URL(e.PUBLIC_BASE_URL);
    } catch {
      throw new ConfigError('PUBLIC_BASE_URL: must be an absolute URL');
    }
  }
  let corsAllowedOrigins: string[] = [];
  try {
    corsAllowedOrigins = parseOriginList(e.CORS_ALLOWED_ORIGINS ?? '');
  } catch (err) {
    throw new ConfigError(`CORS_ALLOWED_ORIGINS: ${(err as Error).message}`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    assetsDir: path.resolve(e.ASSETS_DIR ?? path.join(APP_ROOT, 'assets')),
    databaseUrl: e.DATABASE_URL ?? null,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    redisUrl: e.REDIS_URL ?? null,
    rendererAddr: e.RENDERER_ADDR ?? null,
    rendererOutageWaitMs: e.RENDERER_OUTAGE_WAIT_MS,
    renderBackend: e.RENDER_BACKEND,
    publicBaseUrl: e.PUBLIC_BASE_URL ? e.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
    adminToken: e.ADMIN_TOKEN ?? null,
    imageSigningKeys: e.IMAGE_SIGNING_KEYS ? parseKeyedSecrets('IMAGE_SIGNING_KEYS', e.IMAGE_SIGNING_KEYS) : null,
    apiKeyHashSecrets: e.API_KEY_HASH_SECRETS
      ? parseKeyedSecrets('API_KEY_HASH_SECRETS', e.API_KEY_HASH_SECRETS)
      : null,
    imageUrlTtlSeconds: e.IMAGE_URL_TTL_SECONDS,
    renderTimeoutMs: e.RENDER_TIMEOUT_MS,
    usageFlushMs: e.USAGE_FLUSH_MS,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    adminBodyLimitBytes: e.ADMIN_BODY_LIMIT_KB * 1024,
    catalogImportLimitBytes: e.CATALOG_IMPORT_LIMIT_MB * 1024 * 1024,
    maxCompressionRatio: e.MAX_COMPRESSION_RATIO,
    bodyTimeoutMs: e.BODY_TIMEOUT_MS,
    importBodyTimeoutMs: e.IMPORT_BODY_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    downloadConcurrentRenders: e.DOWNLOAD_CONCURRENT_RENDERS,
    downloadRendersPerMinute: e.DOWNLOAD_RENDERS_PER_MINUTE,
    downloadQueuedRenders: e.DOWNLOAD_QUEUED_RENDERS,
    downloadQueueWaitMs: e.DOWNLOAD_QUEUE_WAIT_MS,
    imageCacheMaxAgeSeconds: e.IMAGE_CACHE_MAX_AGE_SECONDS,
    seedDemo: e.SEED_DEMO,
    logLevel: e.LOG_LEVEL,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    adminAuthFailuresPerMinute: e.ADMIN_AUTH_FAILURES_PER_MINUTE,
    dashboard: {
      distDir: e.DASHBOARD_DIST_DIR ? path.resolve(e.DASHBOARD_DIST_DIR) : null,
      linkTtlSeconds: e.DASHBOARD_LINK_TTL_SECONDS,
      sessionIdleSeconds: e.DASHBOARD_SESSION_IDLE_SECONDS,
      sessionMaxSeconds: e.DASHBOARD_SESSION_MAX_SECONDS,
      signInFailuresPerAddress: e.DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS,
      signInFailuresPerEmail: e.DASHBOARD_SIGN_IN_FAILURES_PER_EMAIL,
      signInWindowSeconds: e.DASHBOARD_SIGN_IN_WINDOW_SECONDS,
    },
    usageDailyFlushMs: e.USAGE_DAILY_FLUSH_MS,
    corsAllowedOrigins,
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map((p) => Number(p.trim())),
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      pollMs: e.WEBHOOK_POLL_MS,
    },
  };
}

const rendererSchema = z.object({
  RENDERER_PORT: port(50051),
  RENDERER_HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  RENDER_BACKEND: z.preprocess(emptyAsUndefined, z.enum(RENDER_BACKENDS).default('auto')),
  ASSETS_DIR: optionalString,
  RENDER_CACHE_MB: positiveInt(512),
  RENDER_WORKERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().max(64).optional()),
  RENDER_QUEUE_MAX: positiveInt(64),
  LEVEL_CACHE_DIR: optionalString,
  LEVEL_CACHE_MB: positiveInt(4096),
  RENDERER_GRACE_MS: positiveInt(10_000, GRACE_MAX_MS),
  RENDER_WARMUP: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('true')),
  RENDERER_METRICS_PORT: metricsPort(9465),
  RENDERER_METRICS_HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  LOG_LEVEL: logLevel,
});

export interface RendererConfig {
  port: number;
  host: string;
  backend: RenderBackendChoice;
  assetsDir: string;
  cacheBytes: number;
  workers: number;
  queueMax: number;
  /**
   * Built levels kept on local disk (renderer/assets/level-files.ts): the directory and its byte
   * budget; null (LEVEL_CACHE_DIR unset or empty): none, every cold level is decoded and reduced.
   */
  levelFiles: { dir: string; bytes: number } | null;
  /** On SIGTERM: how long renders in flight may take to finish. */
  graceMs: number;
  /** Render one view in every format before taking calls (renderer/warm-up.ts). */
  warmUp: boolean;
  logLevel: string;
  /** Internal Prometheus port (GET /metrics) beside the gRPC port; null: off. */
  metricsPort: number | null;
  metricsHost: string;
}

export function loadRendererConfig(env: NodeJS.ProcessEnv = process.env, projectRoot = process.cwd()): RendererConfig {
  const parsed = rendererSchema.safeParse(env);
  if (!parsed.success) fail(parsed.error);
  const e = parsed.data;
  return {
    port: e.RENDERER_PORT,
    host: e.RENDERER_HOST,
    backend: e.RENDER_BACKEND,
    assetsDir: path.resolve(e.ASSETS_DIR ?? path.join(projectRoot, 'assets')),
    cacheBytes: e.RENDER_CACHE_MB * 1024 * 1024,
    // at most 64: every layers arena keeps one scratch row per compositing thread (renderer/assets/arena.ts ARENA_SLOTS)
    workers: e.RENDER_WORKERS ?? Math.min(64, Math.max(1, os.availableParallelism())),
    queueMax: e.RENDER_QUEUE_MAX,
    levelFiles: e.LEVEL_CACHE_DIR ? { dir: path.resolve(e.LEVEL_CACHE_DIR), bytes: e.LEVEL_CACHE_MB * 1024 * 1024 } : null,
    graceMs: e.RENDERER_GRACE_MS,
    warmUp: e.RENDER_WARMUP === 'true',
    logLevel: e.LOG_LEVEL,
    metricsPort: e.RENDERER_METRICS_PORT,
    metricsHost: e.RENDERER_METRICS_HOST,
  };
}
