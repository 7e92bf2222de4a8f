/**
 * The baseline of the gateway benchmark: a bare Express app on 127.0.0.1 that answers one route
 * with a fixed JSON body (the benchmark gives it the body of a real `GET /v1/makes`), with none of
 * the gateway's middleware (no logging, metrics, key check or limiter).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { appServerClasses } from '../../gateway/http/app-server-classes.ts';

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `appClasses`: served on the gateway's request/response classes (gateway/http/app-server-classes.ts),
 * to show how much of a difference is Express's own per-request cost; the benchmark's baseline is
 * the plain `http.createServer(app)` that a bare Express app is served with.
 */
export async function startBareExpress(body: unknown, route = '/bare', opts: { appClasses?: boolean } = {}): Promise<BareServer> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // like the gateway's JSON answers
  app.get(route, (_req, res) => {
    res.json(body);
  });
  return listenOnLoopback(app, route, undefined, opts.appClasses);
}

/** Serves `app` on 127.0.0.1 (a free port, keep-alive like the gateway's), for the benchmark's children. */
export async function listenOnLoopback(app: express.Express, route: string, onClose?: () => void, appClasses = false): Promise<BareServer> {
  const server = appClasses ? http.createServer(appServerClasses(app), app) : http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${route}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        onClose?.();
      }),
  };
}
