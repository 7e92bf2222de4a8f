/**
 * The floor of the gateway benchmark (BENCH_CASES=…,floor): a bare Express app that does only what
 * every authenticated `/v1` call must do, and nothing else: the key's HMAC looked up in a map, one
 * limiter decision in Redis (the gateway's own Redis limiter and script, both limits counted), one
 * request log line through the service's logger on stdout, and the cached answer's bytes with the
 * gateway's headers (Content-Type, RateLimit, RateLimit-Policy, Vary, X-Request-Id). No routing
 * layers, metrics, CORS, usage recording or write-behind to PostgreSQL. The gateway cannot go
 * faster than this on the same machine; its distance from it is what the middleware costs.
 */
import crypto from 'node:crypto';
import express from 'express';
import { Redis } from 'ioredis';
import { createLogger } from '../../shared/logger.ts';
import { listenOnLoopback, type BareServer } from './bare-express.ts';
import { rateLimitHeaders } from '../../gateway/limits/headers.ts';
import { createRedisLimiter } from '../../gateway/limits/redis-limiter.ts';
import { createMemoryLimiter } from '../../gateway/limits/memory-limiter.ts';
import type { Limiter } from '../../gateway/limits/limiter.ts';

export async function startFloorExpress(opts: { body: Buffer; key: string; redisUrl: string | null; route?: string }): Promise<BareServer> {
  const route = opts.route ?? '/floor';
  const logger = createLogger('floor', 'info');
  const secret = crypto.randomBytes(32);
  const hash = (k: string) => crypto.createHmac('sha256', secret).update(k).digest('hex');
  const keys = new Map([[hash(opts.key), { orgId: 'org_floor', keyId: 'key_floor' }]]);
  const store = { addUsage: async () => {}, getUsage: async () => 0 };
  const redis = opts.redisUrl ? new Redis(opts.redisUrl) : null;
  const limiter: Limiter = redis
    ? createRedisLimiter({ redis, keyPrefix: `bench:floor:${crypto.randomBytes(4).toString('hex')}:`, usageStore: store, logger })
    : createMemoryLimiter({ usageSeed: store });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get(route, async (req, res) => {
    const start = Date.now();
    const id = crypto.randomUUID();
    res.setHeader('X-Request-Id', id);
    const p = keys.get(hash(String(req.headers['x-api-key'])));
    if (!p) {
      res.status(401).json({ error: 'unauthorized', message: 'invalid key' });
      return;
    }
    const d = await limiter.consume({ keyId: p.keyId, orgId: p.orgId, rpmLimit: 1_000_000, monthlyQuota: 2_000_000_000 });
    const h = rateLimitHeaders(d);
    for (const name in h) res.setHeader(name, h[name]!);
    res.setHeader('Vary', 'Origin');
    res.on('finish', () => {
      logger.info({ req: { id, method: req.method, url: req.url }, res: { statusCode: res.statusCode }, org: p.orgId, key: p.keyId, responseTime: Date.now() - start }, 'request completed');
    });
    res.set('Content-Type', 'application/json; charset=utf-8').send(opts.body);
  });
  // on the gateway's request classes (gateway/http/app-server-classes.ts), like the gateway: a floor
  // served the plain way would pay Express's per-request prototype switch, which the gateway does not
  return listenOnLoopback(app, route, () => redis?.disconnect(), true);
}
