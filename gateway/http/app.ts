import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from '../../shared/logger.ts';
import type { AdminService } from '../admin/admin-service.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { InvalidationBus } from '../auth/invalidation-bus.ts';
import type { AssetSetDirectory } from '../catalog/asset-sets.ts';
import type { CatalogRepo } from '../catalog/catalog-repo.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import type { Database } from '../db/database.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { ImageRenderer } from '../render/image-renderer.ts';
import type { SetGeometry } from '../render/set-geometry.ts';
import type { ImageSigner } from '../signing/image-token.ts';
import type { DownloadGuard } from '../limits/download-guard.ts';
import { authenticateAndLimit } from './authenticate.ts';
import { adminBodyParser, type BodyLimits } from './body.ts';
import { imageCors, v1Cors, type ContractOrigins } from './cors.ts';
import { requestLog } from './request-log.ts';
import { errorHandler, limitUrlLength, notFoundHandler, rejectMalformedQuery } from './errors.ts';
import { closeUnreadBodies, noStore, requireHost } from './request-guards.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import type { HttpMetrics } from './metrics.ts';
import { adminRoutes } from './routes/admin.ts';
import { imageRoutes } from './routes/images.ts';
import { rootRoutes } from './routes/root.ts';
import { catalogRoutes } from './routes/v1-catalog.ts';
import { imageJsonHandler } from './routes/v1-image.ts';
import { meRoutes } from './routes/v1-me.ts';
import { referenceRoutes } from './routes/v1-reference.ts';
import { searchRoutes } from './routes/v1-search.ts';
import { usageRoutes } from './routes/v1-usage.ts';
import { dashboardRoutes, type DashboardOptions } from '../dashboard/routes.ts';
import { recordAdmittedCalls } from '../usage/record-middleware.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import { vehicleImagesRoutes } from './routes/v1-vehicle-images.ts';
import { spinRoutes } from './routes/v1-spin.ts';
import { eventRoutes } from './routes/v1-events.ts';
import type { WebhookEndpoints } from '../events/endpoints.ts';
import { mcpRoutes } from '../mcp/http.ts';

export interface AppDeps {
  logger: Logger;
  /** Catalog changes (CATALOG_INVALIDATION) drop the catalog's cached answers; absent: they expire (2 s). */
  bus?: InvalidationBus;
  db: Database;
  authenticator: Authenticator;
  limiter: Limiter;
  admin: AdminService;
  adminToken: string;
  signer: ImageSigner;
  renderer: ImageRenderer | null;
  assets: AssetSetDirectory;
  publicBaseUrl: () => string;
  renderTimeoutMs: number;
  version: string;
  ready: () => Promise<boolean>;
  /** Admin request bodies: `small` for every call, `large` for the catalog import. */
  bodyLimits: { small: BodyLimits; large: BodyLimits };
  /** The per-organisation guard on image downloads. */
  downloadGuard: DownloadGuard;
  /** Longest Cache-Control max-age of a downloaded image. */
  imageCacheMaxAgeSeconds: number;
  /** Metrics are served on the internal port (service.ts), never here. */
  metrics: HttpMetrics;
  /** Failed admin authentications per client address and minute before 429. */
  adminAuthFailuresPerMinute: number;
  /** CORS: origins allowed for every organisation (CORS_ALLOWED_ORIGINS), and the contracts' own lists. */
  corsAllowedOrigins: readonly string[];
  contractOrigins: ContractOrigins;
  /** Per-day usage (GET /v1/usage); service.ts flushes it. */
  usageRecorder: UsageRecorder;
  /** The catalog's queries and its cached answers. */
  catalogRepo: CatalogRepo;
  catalog: CatalogService;
  /** The views' vehicle boxes and ground lines, for every image answer's layout. */
  geometry: SetGeometry;
  /** The customer dashboard at /dashboard and the admin sign-in links (absent: not served). */
  dashboard?: DashboardOptions;
  /** Webhook endpoints for the admin API (docs/events.md); absent: those calls are not served. */
  webhooks?: WebhookEndpoints;
}

/**
 * A path under /v1/ (`/v1/makes`, any letter case: routing ignores it) is never a route of the root or
 * image routers (`GET /v1` itself is, and `/v1/` with it: a trailing slash is ignored too), so the
 * API's calls go past them without walking their layers.
 */
const V1_SUBPATH = /^\/v1\/[^/?]/i;
const ADMIN_PATH = /^\/admin\/v1(?:[/?]|$)/i;
function skipV1Subpaths(router: RequestHandler): RequestHandler {
  const skipping: RequestHandler = (req, res, next) => {
    if (V1_SUBPATH.test(req.url)) next();
    else router(req, res, next);
  };
  // methodNotAllowed() finds a mounted router's routes through its `stack`
  return Object.assign(skipping, { stack: (router as unknown as { stack?: unknown[] }).stack, router });
}

/** How long /readyz waits for the database (the probes' timeout is longer: deploy/k8s, compose.yaml). */
const READY_CHECK_MS = 2_000;

/** Builds the HTTP app from its dependencies; it opens nothing itself. */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // JSON answers vary per key and quota; images set their own ETag
  app.set('query parser', 'simple');

  const { metrics, catalog, geometry } = deps;
  const genReqId = (req: IncomingMessage, res: ServerResponse) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID();
    res.setHeader('X-Request-Id', id);
    return id;
  };
  const ignore = (req: IncomingMessage) => req.url === '/healthz' || req.url === '/readyz';
  // The access log (the URL as the router sees it, image tokens and key-shaped strings masked; the
  // status: request-log.ts) and the latency histogram, from one hook per request.
  const log = requestLog({ logger: deps.logger, genReqId, ignore, onFinish: (req, res, seconds) => metrics.record(req as Request, res as Response, seconds) });
  log.install(app.request);
  app.use(log.middleware);
  app.use(closeUnreadBodies);
  app.use(requireHost);
  // CORS before any route and any refusal: preflights are answered here, before authentication (never
  // billed), and a refusal below (a long URL, a malformed query) carries Vary and the CORS headers too
  const corsV1 = v1Cors({ gatewayOrigins: deps.corsAllowedOrigins, contracts: deps.contractOrigins });
  // a /v1 answer is the key's own (its contract's catalog, its quota, URLs signed for it): a shared
  // cache keyed by the URL alone must never hand it to another client
  app.use('/v1', noStore, corsV1.admit);
  app.use('/images', imageCors());
  app.use(limitUrlLength(8192));
  // a /v1 call's query is checked behind its key, in the v1 router: a counted 400 like a bad path's;
  // an admin call's behind the admin token (admin.ts), like everything under /admin/v1
  app.use(skipV1Subpaths((req, res, next) => (ADMIN_PATH.test(req.url) ? next() : rejectMalformedQuery(req, res, next))));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    // a stalled database answers nothing: say "not ready" within the probe's patience, not after it
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), READY_CHECK_MS)));
    const ok = await Promise.race([deps.ready().catch(() => false), late]);
    clearTimeout(timer);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready' });
  });

  app.use(skipV1Subpaths(rootRoutes({ version: deps.version })));
  app.use(
    skipV1Subpaths(imageRoutes({
      signer: deps.signer,
      renderer: deps.renderer,
      renderTimeoutMs: deps.renderTimeoutMs,
      authenticator: deps.authenticator,
      guard: deps.downloadGuard,
      cacheMaxAgeSeconds: deps.imageCacheMaxAgeSeconds,
    })),
  );

  // The bearer token first, then the body (never read for a refused call), limited per route.
  const { bodyLimits } = deps;
  app.use(
    '/admin/v1',
    metrics.mount('/admin/v1'),
    adminRoutes({
      admin: deps.admin,
      adminToken: deps.adminToken,
      db: deps.db,
      assets: deps.assets,
      authFailuresPerMinute: deps.adminAuthFailuresPerMinute,
      signInLinks: deps.dashboard?.signInLinks,
      webhooks: deps.webhooks,
      bodyParser: adminBodyParser({
        small: bodyLimits.small,
        large: bodyLimits.large,
        largeRoute: (req) => req.method === 'POST' && /^\/catalog\/import\/?$/i.test(req.path),
        lenientTypes: true, // bearer-token calls: no cross-site form can carry the token
      }),
    }),
  );

  const repo = deps.catalogRepo;
  // the /v1 routes behind their gate: the dashboard's playground runs the same router behind its own
  const v1 = express.Router();
  v1.use(rejectMalformedQuery);
  const usage = deps.usageRecorder;
  // The catalog walk first: it carries most of the traffic, and no other /v1 router's paths overlap it.
  const catalogRouter = catalogRoutes({ catalog, image: imageJsonHandler({ catalog, signer: deps.signer, publicBaseUrl: deps.publicBaseUrl, geometry }) });
  v1.use(catalogRouter);
  v1.use(meRoutes({ repo, limiter: deps.limiter }));
  v1.use(usageRoutes({ db: deps.db, limiter: deps.limiter, recorder: usage }));
  v1.use(referenceRoutes());
  v1.use(searchRoutes({ db: deps.db }));
  v1.use(vehicleImagesRoutes({ catalog, signer: deps.signer, publicBaseUrl: deps.publicBaseUrl, geometry }));
  v1.use(spinRoutes({ catalog, signer: deps.signer, publicBaseUrl: deps.publicBaseUrl, geometry, logger: deps.logger }));
  v1.use(eventRoutes({ db: deps.db }));
  methodNotAllowed(v1); // a known path with another method: 405 with Allow
  v1.use(notFoundHandler); // an unknown /v1 path with a good key is a counted 404
  app.use('/v1', metrics.mount('/v1'), authenticateAndLimit(deps.authenticator, deps.limiter), corsV1.narrow, recordAdmittedCalls(usage), v1);
  if (deps.dashboard) {
    app.use(
      '/dashboard',
      metrics.mount('/dashboard'),
      dashboardRoutes({ ...deps.dashboard, webhooks: deps.webhooks, db: deps.db, admin: deps.admin, limiter: deps.limiter, recorder: usage, repo, publicBaseUrl: deps.publicBaseUrl, v1, bodyLimits: bodyLimits.small }),
    );
  }

  // MCP for AI agents: its tools are /v1 calls back to this app with the caller's key (gateway/mcp/)
  app.use(mcpRoutes({ version: deps.version, body: bodyLimits.small }));

  methodNotAllowed(app.router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
