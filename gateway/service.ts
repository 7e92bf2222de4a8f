import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayConfig } from './config.ts';
import type { Logger } from '../shared/logger.ts';
import { AdminService } from './admin/admin-service.ts';
import { createAuthenticator } from './auth/authenticator.ts';
import { createLocalBus, createRedisBus, type InvalidationBus } from './auth/invalidation-bus.ts';
import { createFileAssetSetDirectory, type AssetSetDirectory } from './catalog/asset-sets.ts';
import { CatalogRepo } from './catalog/catalog-repo.ts';
import { CatalogService } from './catalog/catalog-service.ts';
import type { Database } from './db/database.ts';
import { openDatabase } from './db/open.ts';
import { buildApp } from './http/app.ts';
import { appServerClasses } from './http/app-server-classes.ts';
import { createContractOrigins } from './http/cors.ts';
import { answerClientErrorsWithJson, answerProtocolEdgesWithJson } from './http/parser-refusals.ts';
import { createHttpMetrics, downloadGuardMetrics } from './http/metrics.ts';
import type { Registry } from 'prom-client';
import { createLimiter, type ManagedLimiter } from './limits/create-limiter.ts';
import type { Clock } from './limits/limiter.ts';
import { createDownloadGuard } from './limits/download-guard.ts';
import { createSqlUsageStore } from './limits/usage-store.ts';
import { createSessions } from './dashboard/sessions.ts';
import { createSignInLinks } from './dashboard/sign-in-links.ts';
import { createUsageRecorder } from './usage/recorder.ts';
import type { ImageRenderer } from './render/image-renderer.ts';
import { SetGeometry } from './render/set-geometry.ts';
import { loadSecrets } from './secrets.ts';
import { startPhases } from './start-phase.ts';
import { seedDemoCatalog, seedDemoOrganization } from './seed/demo.ts';
import { forgetUnshown, readUnshown, rememberUnshown } from './unshown-credentials.ts';
import { createImageSigner } from './signing/image-token.ts';
import { startDispatcher, type Dispatcher } from './events/dispatcher.ts';
import { WebhookEndpoints } from './events/endpoints.ts';
import { recordQuotaThresholds } from './events/quota-thresholds.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** How long each final usage flush may take at shutdown before its counts are logged as not stored. */
export const FINAL_FLUSH_MS = 5_000;

export interface GatewayHandle {
  url: string;
  port: number;
  adminToken: string;
  /** Printed once: the demo organisation's key, when this start created it. */
  demoKey: string | null;
  /** Printed once with the demo key: a single-use dashboard sign-in link for the demo member, and its id. */
  demoSignIn: { url: string; expiresAt: string; memberId: string } | null;
  /** A published view of the catalog, for the first-image example printed at start. */
  exampleImagePath: string | null;
  generatedAdminToken: boolean;
  /** A demo organisation was made at some start (embedded mode or SEED_DEMO=true). */
  demoOrgExists: boolean;
  /** Call once the welcome text (admin token, demo key) has been written: they are not kept for the next start. */
  credentialsShown(): void;
  /** The public HTTP server (its request classes are the app's: http/app-server-classes.ts). */
  server: http.Server;
  db: Database;
  limiter: ManagedLimiter;
  /** The gateway's Prometheus registry; gateway/main.ts serves it on METRICS_PORT (never the public port). */
  metrics: Registry;
  /**
   * Graceful stop: /readyz answers 503, the listener stops accepting, requests in flight (downloads
   * streaming a render included) finish within SHUTDOWN_GRACE_MS, then open connections are cut;
   * usage counts are flushed and the pools closed.
   */
  close(): Promise<void>;
}

export interface GatewayOptions {
  config: GatewayConfig;
  logger: Logger;
  /** The renderer to call for /images; null answers 503 there. */
  renderer?: ImageRenderer | null;
  /** Injected database (tests share one between instances); otherwise opened from config. */
  db?: Database;
  /** The catalog seeded into an empty database (default assets/demo-catalog.json). */
  demoCatalogFile?: string;
  /** The limits' clock (default Date.now): tests place it where a minute boundary is seconds away. */
  limitsClock?: Clock;
}

/** The gateway's composition root: builds every dependency from config, passes it in, listens. */
export async function startGateway(opts: GatewayOptions): Promise<GatewayHandle> {
  const { config, logger } = opts;
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (config.downloadQueueWaitMs >= config.renderTimeoutMs) {
    logger.warn(
      { downloadQueueWaitMs: config.downloadQueueWaitMs, renderTimeoutMs: config.renderTimeoutMs },
      'DOWNLOAD_QUEUE_WAIT_MS is not below RENDER_TIMEOUT_MS: a download that waits that long is left too little time to render',
    );
  }
  const secrets = loadSecrets(config);
  const phase = startPhases(logger);
  const ownsDb = !opts.db;
  const db =
    opts.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      timeouts: { connectTimeoutMs: config.databaseConnectTimeoutMs, queryTimeoutMs: config.databaseQueryTimeoutMs },
      phase,
    }));
  logger.info({ database: db.kind, redis: config.redisUrl ? 'redis' : 'in-process' }, 'storage ready');

  const bus: InvalidationBus = config.redisUrl ? createRedisBus({ redisUrl: config.redisUrl, logger }) : createLocalBus();
  // each final flush at shutdown gets FINAL_FLUSH_MS: against a stalled database the two end, their
  // unwritten counts logged, inside main.ts's shutdown bound and a container's termination grace
  const limiter = createLimiter({ redisUrl: config.redisUrl, usageStore: createSqlUsageStore(db, { afterAdd: recordQuotaThresholds }), flushMs: config.usageFlushMs, logger, clock: opts.limitsClock, closeTimeoutMs: FINAL_FLUSH_MS });
  const usage = createUsageRecorder({ db, logger, flushMs: config.usageDailyFlushMs, closeTimeoutMs: FINAL_FLUSH_MS });
  const authenticator = createAuthenticator({ db, hashSecrets: secrets.apiKeyHashSecrets, bus, ttlMs: config.authCacheTtlMs });
  // the dispatcher starts once the gateway listens; an event written before then waits for its first round
  let dispatcher: Dispatcher | null = null;
  const admin = new AdminService(db, bus, secrets.apiKeyHashSecrets[0]!, limiter, () => dispatcher?.wake());
  const webhookPolicy = { allowPrivate: config.webhooks.allowPrivateTargets };
  const webhooks = new WebhookEndpoints(db, webhookPolicy);
  const signer = createImageSigner({ keys: secrets.imageSigningKeys, ttlSeconds: config.imageUrlTtlSeconds });
  const assets: AssetSetDirectory = createFileAssetSetDirectory(config.assetsDir);

  const embedded = !config.databaseUrl;
  if (secrets.generated.adminToken) rememberUnshown(config.dataDir, { adminToken: true });
  if (config.seedDemo === 'true' || (config.seedDemo === 'auto')) await seedDemoCatalog(db, assets, logger, opts.demoCatalogFile, phase);
  let demoOrgExists = false;
  if (config.seedDemo === 'true' || (config.seedDemo === 'auto' && embedded)) {
    const seeded = await seedDemoOrganization(db, admin);
    if (seeded) rememberUnshown(config.dataDir, { demo: { key: seeded.key, memberId: seeded.memberId } });
    demoOrgExists = true;
  }
  // what a first start made and nobody has seen yet (this start's, or a failed earlier start's)
  const unshown = readUnshown(config.dataDir);
  const demoKey = unshown.demo?.key ?? null;
  const demoMemberId = unshown.demo?.memberId ?? null;

  const exampleImagePath = await findExampleImagePath(db);
  let baseUrl = config.publicBaseUrl ?? '';
  const signInLinks = createSignInLinks({ db, ttlSeconds: config.dashboard.linkTtlSeconds, publicBaseUrl: () => baseUrl });
  let stopping = false;
  const metrics = createHttpMetrics({ renderTimeoutMs: config.renderTimeoutMs });
  const guardMetrics = downloadGuardMetrics(metrics.registry);
  const downloadGuard = createDownloadGuard({
    concurrent: config.downloadConcurrentRenders,
    perMinute: config.downloadRendersPerMinute,
    queued: config.downloadQueuedRenders,
    waitMs: config.downloadQueueWaitMs,
    onRefused: guardMetrics.refused,
    // a queue full of downloads waiting for a restarting renderer is an outage, not the tenant's doing
    rendererUnreachable: () => opts.renderer?.unreachable?.() ?? false,
    clock: opts.limitsClock,
  });
  guardMetrics.watch(downloadGuard);
  const catalogRepo = new CatalogRepo(db);
  const app = buildApp({
    usageRecorder: usage,
    dashboard: {
      sessions: createSessions({ db, idleSeconds: config.dashboard.sessionIdleSeconds, maxSeconds: config.dashboard.sessionMaxSeconds }),
      signInLinks,
      distDir: config.dashboard.distDir,
      sessionMaxSeconds: config.dashboard.sessionMaxSeconds,
      signInThrottle: {
        perAddress: config.dashboard.signInFailuresPerAddress,
        perEmail: config.dashboard.signInFailuresPerEmail,
        windowSeconds: config.dashboard.signInWindowSeconds,
      },
    },
    metrics,
    adminAuthFailuresPerMinute: config.adminAuthFailuresPerMinute,
    logger,
    bus,
    db,
    authenticator,
    limiter,
    admin,
    adminToken: secrets.adminToken,
    signer,
    renderer: opts.renderer ?? null,
    assets,
    publicBaseUrl: () => baseUrl,
    renderTimeoutMs: config.renderTimeoutMs,
    version: readVersion(),
    ready: async () => {
      if (stopping) return false; // draining: the load balancer takes this instance out
      await db.query('SELECT 1');
      return true;
    },
    bodyLimits: {
      small: { limitBytes: config.adminBodyLimitBytes, maxRatio: config.maxCompressionRatio, timeoutMs: config.bodyTimeoutMs },
      large: { limitBytes: config.catalogImportLimitBytes, maxRatio: config.maxCompressionRatio, timeoutMs: config.importBodyTimeoutMs },
    },
    downloadGuard,
    imageCacheMaxAgeSeconds: config.imageCacheMaxAgeSeconds,
    corsAllowedOrigins: config.corsAllowedOrigins,
    contractOrigins: createContractOrigins({ db, bus }),
    catalogRepo,
    catalog: new CatalogService(catalogRepo, { bus }),
    geometry: new SetGeometry(opts.renderer ?? null, logger),
    webhooks,
  });

  // the header/request timeouts are enforced by a periodic check: often enough that they hold to ~1 s
  const server = http.createServer(
    { ...appServerClasses(app), maxHeaderSize: 65536, requireHostHeader: false, connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))) },
    app,
  );
  server.keepAliveTimeout = 65_000;
  // parser-level refusals (malformed HTTP, control bytes, bad chunking, 431) answer JSON too
  answerClientErrorsWithJson(server, (err, status) => logger.info({ code: (err as NodeJS.ErrnoException).code, status }, 'malformed request refused'));
  // and no bare answers of Node's own either: no Host (the app's requireHost), Expect, CONNECT
  answerProtocolEdgesWithJson(server);
  // slow senders: the headers within HEADERS_TIMEOUT_MS; a whole request (body included) within the
  // longest body deadline plus a margin (the admin body parser answers 408 JSON before this cuts in)
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = Math.max(config.bodyTimeoutMs, config.importBodyTimeoutMs) + 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  if (!config.publicBaseUrl) baseUrl = `http://localhost:${port}`;
  logger.info({ port, publicBaseUrl: baseUrl }, 'gateway listening');
  dispatcher = startDispatcher({
    db,
    logger,
    policy: webhookPolicy,
    timeoutMs: config.webhooks.timeoutMs,
    retryScheduleMs: config.webhooks.retryScheduleMs,
    retryWindowMs: config.webhooks.retryWindowMs,
    pollMs: config.webhooks.pollMs,
  });
  const deliveries = dispatcher;
  // the link needs the base URL, known only once listening
  const demoLink = demoMemberId ? await signInLinks.issue(demoMemberId) : null;
  const demoSignIn = demoLink && demoMemberId ? { url: demoLink.url, expiresAt: demoLink.expires_at, memberId: demoMemberId } : null;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    adminToken: secrets.adminToken,
    demoKey,
    demoSignIn,
    exampleImagePath,
    generatedAdminToken: unshown.adminToken === true && !config.adminToken,
    demoOrgExists,
    credentialsShown: () => forgetUnshown(config.dataDir),
    server,
    db,
    limiter,
    metrics: metrics.registry,
    async close() {
      stopping = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // keep-alive connections that become idle after their answer are closed as they go idle
        const idle = setInterval(() => server.closeIdleConnections(), 250);
        idle.unref();
        const grace = setTimeout(() => {
          logger.warn('grace period over, closing open connections');
          server.closeAllConnections();
        }, config.shutdownGraceMs);
        grace.unref();
        server.once('close', () => {
          clearInterval(idle);
          clearTimeout(grace);
        });
      });
      // every step runs whatever the one before did: a database that stalls during the monthly flush
      // must not skip the per-day flush (and the log of what it could not write) or leave pools open.
      // A flush's own failure is logged by it, with the counts it could not write; these log the rest.
      // the limiter's final flush may write threshold events: they wait in the outbox for the next start
      await limiter.close().catch((err: unknown) => logger.warn({ err }, 'closing the limiter failed'));
      await deliveries.close().catch((err: unknown) => logger.warn({ err }, 'stopping webhook deliveries failed'));
      await usage.close().catch((err: unknown) => logger.warn({ err }, 'closing the usage recorder failed'));
      await bus.close().catch((err: unknown) => logger.warn({ err }, 'closing the invalidation bus failed'));
      if (ownsDb) await db.close().catch((err: unknown) => logger.warn({ err }, 'closing the database failed'));
    },
  };
}

async function findExampleImagePath(db: Database): Promise<string | null> {
  const rows = await db.query<{ make: string; model: string; year: number; variant: string | null; view: string; n: number }>(
    `SELECT mk.slug AS make, md.slug AS model, v.year, v.variant_slug AS variant, vv.view,
            (SELECT count(*)::int FROM vehicles o WHERE o.model_id = v.model_id AND o.year = v.year AND o.published) AS n
       FROM vehicles v JOIN models md ON md.id = v.model_id JOIN makes mk ON mk.id = md.make_id
       JOIN vehicle_views vv ON vv.vehicle_id = v.id AND vv.published AND vv.view = 'front_left'
      WHERE v.published ORDER BY mk.slug, md.slug, v.year DESC LIMIT 1`,
  );
  const r = rows[0];
  if (!r) return null;
  const variant = r.n > 1 && r.variant ? `/${r.variant}` : '';
  return `/v1/makes/${r.make}/models/${r.model}/${r.year}${variant}/${r.view}`;
}

function readVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
