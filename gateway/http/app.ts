import crypto from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../shared/logger.ts';
import type { AdminService } from '../admin/admin-service.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { AssetSetDirectory } from '../catalog/asset-sets.ts';
import { CatalogRepo } from '../catalog/catalog-repo.ts';
import { CatalogService } from '../catalog/catalog-service.ts';
import type { Database } from '../db/database.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { ImageRenderer } from '../render/image-renderer.ts';
import type { ImageSigner } from '../signing/image-token.ts';
import { authenticateAndLimit } from './authenticate.ts';
import { errorHandler, limitUrlLength, notFoundHandler } from './errors.ts';
import { createHttpMetrics } from './metrics.ts';
import { adminRoutes } from './routes/admin.ts';
import { imageRoutes } from './routes/images.ts';
import { rootRoutes } from './routes/root.ts';
import { catalogRoutes } from './routes/v1-catalog.ts';
import { imageJsonHandler } from './routes/v1-image.ts';
import { meRoutes } from './routes/v1-me.ts';
import { referenceRoutes } from './routes/v1-reference.ts';
import { searchRoutes } from './routes/v1-search.ts';

export interface AppDeps {
  logger: Logger;
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
}

/** Builds the HTTP app from its dependencies; it opens nothing itself. */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // JSON answers vary per key and quota; images set their own ETag
  app.set('query parser', 'simple');

  const metrics = createHttpMetrics();
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, url: String(req.url).replace(/\/images\/[^/?]+/, '/images/…') }),
      },
    }),
  );
  app.use(metrics.middleware);
  app.use(limitUrlLength(8192));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ok = await deps.ready().catch(() => false);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready' });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.use(rootRoutes({ version: deps.version }));
  app.use(imageRoutes({ signer: deps.signer, renderer: deps.renderer, renderTimeoutMs: deps.renderTimeoutMs }));

  app.use(
    '/admin/v1',
    express.json({ limit: '20mb' }),
    express.text({ type: 'text/csv', limit: '20mb' }),
    adminRoutes({ admin: deps.admin, adminToken: deps.adminToken, db: deps.db, assets: deps.assets }),
  );

  const repo = new CatalogRepo(deps.db);
  const catalog = new CatalogService(repo);
  const v1 = express.Router();
  v1.use(authenticateAndLimit(deps.authenticator, deps.limiter));
  v1.use(meRoutes({ repo, limiter: deps.limiter }));
  v1.use(referenceRoutes());
  v1.use(searchRoutes({ db: deps.db }));
  v1.use(catalogRoutes({ catalog, image: imageJsonHandler({ catalog, signer: deps.signer, publicBaseUrl: deps.publicBaseUrl }) }));
  v1.use(notFoundHandler); // an unknown /v1 path with a good key is a counted 404
  app.use('/v1', v1);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
