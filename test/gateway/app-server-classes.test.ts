import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { appServerClasses } from '../../gateway/http/app-server-classes.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

/**
 * The node request/response classes born with the app's prototypes (gateway/http/app-server-classes.ts),
 * on real servers on port 0: each request and response already has `app.request` / `app.response` as
 * its prototype when node hands it over, and an Express app answers exactly as it does on a plain
 * `http.createServer(app)` (status, headers, bodies, params, query, errors, a streamed body, keep-alive);
 * the gateway's own server is built with them.
 */
describe('app server classes', function () {
  this.timeout(20_000);
  const servers: http.Server[] = [];
  after(() => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))));

  function buildTestApp(): Express {
    const app = express();
    app.disable('x-powered-by');
    app.set('query parser', 'simple');
    const router = express.Router();
    router.get('/items/:id', (req, res) => {
      res.status(201).set('X-Item', String(req.params.id)).json({ id: req.params.id, q: req.query, path: req.path, base: req.baseUrl, ip: req.ip });
    });
    router.post('/echo', express.json(), (req, res) => void res.json({ got: req.body as unknown }));
    router.get('/stream', (_req, res) => {
      res.type('text/plain');
      res.write('a'.repeat(70_000));
      res.end('end');
    });
    router.get('/boom', () => {
      throw new Error('kaboom');
    });
    app.use('/api', router);
    app.get('/redirect', (_req, res) => res.redirect(302, '/api/items/1'));
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
      res.status(500).json({ error: 'internal', message: err.message === 'kaboom' ? 'caught' : 'other' });
    });
    return app;
  }

  async function serve(withClasses: boolean): Promise<{ base: string; server: http.Server; app: Express }> {
    const app = buildTestApp();
    const server = withClasses ? http.createServer(appServerClasses(app), app) : http.createServer(app);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, app };
  }

  describe('happy', () => {
    it('gives every request and response the app prototypes before Express sees them', async () => {
      const { base, server, app } = await serve(true);
      const seen: boolean[] = [];
      // runs before the app's own listener: what node built, not what Express made of it
      server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
        seen.push(req instanceof http.IncomingMessage, res instanceof http.ServerResponse);
      });
      for (let i = 0; i < 3; i++) expect((await fetch(`${base}/api/items/${i}`)).status).to.equal(201);
      expect(seen).to.have.length(12);
      expect(seen.every(Boolean)).to.equal(true);
    });

    it('answers exactly as the same app on a plain server', async () => {
      const plain = await serve(false);
      const classes = await serve(true);
      const calls: [string, RequestInit?][] = [
        ['/api/items/42?color=red&width=400'],
        ['/api/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' }],
        ['/api/stream'],
        ['/api/boom'],
        ['/redirect'],
        ['/nowhere'],
      ];
      for (const [path, init] of calls) {
        const a = await fetch(`${plain.base}${path}`, { ...init, redirect: 'manual' });
        const b = await fetch(`${classes.base}${path}`, { ...init, redirect: 'manual' });
        const headers = (r: globalThis.Response) => [...r.headers].filter(([k]) => k !== 'date');
        expect(b.status, path).to.equal(a.status);
        expect(headers(b), path).to.deep.equal(headers(a));
        expect(await b.text(), path).to.equal(await a.text());
      }
    });
  });

  describe('the gateway', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway();
    });
    after(() => gw.close());

    it('serves on these classes: each request carries the app request prototype, with its log, before Express runs', async () => {
      const seen: { switched: boolean; log: boolean; id: string | undefined }[] = [];
      const onRequest = (req: http.IncomingMessage) => {
        const proto = Object.getPrototypeOf(req) as object;
        seen.push({
          switched: proto !== http.IncomingMessage.prototype,
          // request-log.ts installs `log` on the app's request prototype: present only on the app's classes
          log: typeof Object.getOwnPropertyDescriptor(proto, 'log')?.get === 'function',
          id: req.headers['x-request-id'] as string | undefined,
        });
      };
      gw.server.prependListener('request', onRequest);
      try {
        const key = (await gw.admin.customer({})).key;
        const makes = await gw.getWithKey(key, '/v1/makes', { 'x-request-id': 'classes-1' });
        expect(makes.status).to.equal(200);
        const refused = await gw.get('/v1/makes', { 'x-request-id': 'classes-2' });
        expect(refused.status).to.equal(401);
        expect(Object.keys(refused.body as object)).to.have.members(['error', 'message']);
      } finally {
        gw.server.removeListener('request', onRequest);
      }
      const mine = seen.filter((s) => s.id === 'classes-1' || s.id === 'classes-2');
      expect(mine).to.have.length(2);
      for (const s of mine) expect(s).to.include({ switched: true, log: true });
    });
  });

  describe('error', () => {
    it('keeps the app error handler and the 404 of an unknown path', async () => {
      const { base } = await serve(true);
      const boom = await fetch(`${base}/api/boom`);
      expect(boom.status).to.equal(500);
      expect(await boom.json()).to.deep.equal({ error: 'internal', message: 'caught' });
      expect((await fetch(`${base}/nowhere`)).status).to.equal(404);
    });
  });

  describe('security', () => {
    it('keeps one connection for many requests without mixing their answers', async () => {
      const { base } = await serve(true);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const ids = Array.from({ length: 20 }, (_, i) => String(i));
      const bodies = await Promise.all(
        ids.map(
          (id) =>
            new Promise<string>((resolve, reject) => {
              http
                .get(`${base}/api/items/${id}`, { agent }, (res) => {
                  let text = '';
                  res.setEncoding('utf8');
                  res.on('data', (c: string) => (text += c));
                  res.on('end', () => resolve(text));
                })
                .on('error', reject);
            }),
        ),
      );
      agent.destroy();
      expect(bodies.map((b) => (JSON.parse(b) as { id: string }).id)).to.deep.equal(ids);
    });
  });
});
