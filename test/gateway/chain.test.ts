/**
 * chain() (gateway/http/chain.ts) on a real Express server: the handlers run in order as one layer,
 * and leave it the way Express would have had them leave it one by one (an error, a throw, a
 * rejected promise, 'route' and 'router', and next() after the last).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { chain } from '../../gateway/http/chain.ts';

const mark = (name: string): RequestHandler => (req, _res, next) => {
  (req as Request & { seen: string[] }).seen.push(name);
  next();
};

describe('chain: several middleware as one router layer', function () {
  this.timeout(20_000);
  let server: http.Server;
  let base: string;

  before(async () => {
    const app = express();
    app.use((req, _res, next) => {
      (req as Request & { seen: string[] }).seen = [];
      next();
    });
    const answer: RequestHandler = (req, res) => {
      res.json({ seen: (req as Request & { seen: string[] }).seen });
    };
    app.use('/order', chain(mark('a'), mark('b'), mark('c'), answer));
    app.use('/past', chain(mark('a'), mark('b')));
    app.use('/error', chain(mark('a'), (_req, _res, next) => next(new Error('boom')), mark('never')));
    app.use('/throw', chain(mark('a'), () => {
      throw new Error('thrown');
    }, mark('never')));
    app.use('/reject', chain(mark('a'), async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('rejected');
    }, mark('never')));
    app.use('/route', chain(mark('a'), (_req, _res, next) => next('route'), mark('b'), answer));
    app.use('/router', chain(mark('a'), (_req, _res, next) => next('router'), mark('never')));
    app.use('/async-next', chain(async (_req, _res, next) => {
      await new Promise((r) => setTimeout(r, 5));
      next();
    }, mark('after-await'), answer));
    // after the chains: where next() and next('router') land
    app.use((req: Request, res: Response) => {
      res.status(404).json({ past: true, seen: (req as Request & { seen: string[] }).seen });
    });
    app.use((err: Error, req: Request, res: Response, _next: NextFunction) => {
      res.status(500).json({ error: err.message, seen: (req as Request & { seen: string[] }).seen });
    });
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
  });

  const get = async (p: string) => {
    const r = await fetch(base + p);
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  describe('happy', () => {
    it('runs the handlers in order; the last answers', async () => {
      expect(await get('/order')).to.deep.equal({ status: 200, body: { seen: ['a', 'b', 'c'] } });
    });
    it("next() after the last handler continues past the chain", async () => {
      expect(await get('/past')).to.deep.equal({ status: 404, body: { past: true, seen: ['a', 'b'] } });
    });
    it("an async handler may call next() after an await", async () => {
      expect(await get('/async-next')).to.deep.equal({ status: 200, body: { seen: ['after-await'] } });
    });
    it("'route' goes on to the next handler, as Express does for a middleware", async () => {
      expect(await get('/route')).to.deep.equal({ status: 200, body: { seen: ['a', 'b'] } });
    });
  });

  describe('errors', () => {
    it('next(err) skips the rest and reaches the error handler', async () => {
      expect(await get('/error')).to.deep.equal({ status: 500, body: { error: 'boom', seen: ['a'] } });
    });
    it('a thrown error does too', async () => {
      expect(await get('/throw')).to.deep.equal({ status: 500, body: { error: 'thrown', seen: ['a'] } });
    });
    it('a rejected promise does too', async () => {
      expect(await get('/reject')).to.deep.equal({ status: 500, body: { error: 'rejected', seen: ['a'] } });
    });
    it("'router' leaves the app's router (Express's final handler answers 404)", async () => {
      const r = await fetch(base + '/router');
      expect(r.status).to.equal(404);
      expect(await r.text()).to.not.include('past');
    });
  });

  describe('security', () => {
    it('refuses to be built empty (a gate with nothing in it would wave every call through)', () => {
      expect(() => chain()).to.throw(/at least one/);
    });
  });
});


describe('chain: introspection', () => {
  it('shows the routes of a router at its end (what walks the app, such as the 405 Allow lists, finds them)', () => {
    const r = express.Router();
    r.get('/x', (_req, res) => res.end());
    const c = chain((_req, _res, next) => next(), r) as RequestHandler & { stack?: unknown[] };
    expect(c.stack).to.equal((r as unknown as { stack: unknown[] }).stack);
    expect((chain((_req, _res, next) => next()) as { stack?: unknown }).stack).to.equal(undefined);
  });
});
