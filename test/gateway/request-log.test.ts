import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { bindRequestLog, requestLog } from '../../gateway/http/request-log.ts';
import { captureLog, type LogEntry } from '../support/log-capture.ts';

/**
 * The gateway's request hook on a real Express server on port 0: one access line per request with the
 * fields pino-http gave (req, the bound org and key, res, responseTime), error lines for errors and
 * 5xx, "request aborted" for a client gone before the answer, none for probes unless they fail, the
 * bindings on every later line of the request's own logger, and the latency hook for finished answers.
 */
describe('request log hook', function () {
  this.timeout(20_000);
  const log = captureLog();
  const finished: { url: string; status: number }[] = [];
  let server: http.Server;
  let base = '';
  let releaseSlow: (() => void) | null = null;

  before(async () => {
    const app = express();
    const hook = requestLog({
      logger: log.logger('gateway', 'info'),
      genReqId: (req) => String(req.headers['x-request-id'] ?? 'generated'),
      ignore: (req) => req.url === '/healthz',
      onFinish: (req, res) => finished.push({ url: String(req.url), status: res.statusCode }),
    });
    hook.install(app.request);
    app.use(hook.middleware);
    app.get('/ok', (_req, res) => void res.json({ ok: true }));
    app.get('/bound', (req, res) => {
      bindRequestLog(req, { org: 'org_1', key: 'key_1' });
      res.json({ ok: true });
    });
    app.get('/bound-then-logged', (req, res) => {
      bindRequestLog(req, { org: 'org_2', key: 'key_2' });
      req.log.info('in the handler');
      res.json({ ok: true });
    });
    app.get('/boom', (_req, _res, next) => next(new Error('kaboom')));
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    app.get('/healthz-fails', (_req, res) => void res.status(503).json({ status: 'not ready' }));
    app.get('/slow', (_req, res) => {
      releaseSlow = () => res.json({ late: true });
    });
    app.use((err: Error, req: Request, res: Response, _next: NextFunction) => {
      req.log.error({ err }, 'handler failed');
      res.status(500).json({ error: 'internal', message: 'An unexpected error occurred' });
    });
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const get = (path: string, id: string) => fetch(`${base}${path}`, { headers: { 'x-request-id': id } });
  const linesOf = async (id: string, count: number): Promise<LogEntry[]> => {
    for (let i = 0; i < 100; i++) {
      const mine = log.entries().filter((e) => (e.req as { id?: string } | undefined)?.id === id);
      if (mine.length >= count) return mine;
      await new Promise((r) => setTimeout(r, 20));
    }
    return log.entries().filter((e) => (e.req as { id?: string } | undefined)?.id === id);
  };

  it('logs one "request completed" line with req, res and responseTime, and the bound org and key', async () => {
    expect((await get('/ok', 'a-1')).status).to.equal(200);
    const [line] = await linesOf('a-1', 1);
    expect(line).to.include({ level: 30, msg: 'request completed' });
    expect(line!.req).to.deep.equal({ id: 'a-1', method: 'GET', url: '/ok' });
    expect(line!.res).to.deep.equal({ statusCode: 200 });
    expect(line!.responseTime).to.be.a('number');
    expect(line!.org).to.equal(undefined);

    expect((await get('/bound', 'a-2')).status).to.equal(200);
    const [bound] = await linesOf('a-2', 1);
    expect(bound).to.include({ msg: 'request completed', org: 'org_1', key: 'key_1' });
  });

  it('gives the request logger the bindings made before it was asked for, on the handler line and the access line', async () => {
    expect((await get('/bound-then-logged', 'b-1')).status).to.equal(200);
    const lines = await linesOf('b-1', 2);
    expect(lines.map((l) => l.msg)).to.deep.equal(['in the handler', 'request completed']);
    for (const l of lines) expect(l).to.include({ org: 'org_2', key: 'key_2' });
  });

  it('logs an error or a 5xx as "request errored" at warn level (the handler logs the error itself), with the error', async () => {
    expect((await get('/boom', 'c-1')).status).to.equal(500);
    const lines = await linesOf('c-1', 2);
    const access = lines.find((l) => l.msg === 'request errored')!;
    expect(access, JSON.stringify(lines)).to.not.equal(undefined);
    expect(access.level).to.equal(40);
    expect(access.res).to.deep.equal({ statusCode: 500 });
    expect((access.err as { message?: string }).message).to.equal('failed with status code 500');
    expect((access.err as { stack?: string }).stack ?? '', 'the real error and its stack are on the handler\'s own line').to.equal('');
  });

  it('leaves probes out of the log unless they fail, and still measures them', async () => {
    const before = finished.length;
    expect((await get('/healthz', 'd-1')).status).to.equal(200);
    expect((await get('/healthz-fails', 'd-2')).status).to.equal(503);
    await linesOf('d-2', 1);
    expect(log.entries().filter((e) => (e.req as { id?: string } | undefined)?.id === 'd-1')).to.deep.equal([]);
    expect((await linesOf('d-2', 1))[0]).to.include({ msg: 'request errored', level: 40 });
    expect(finished.slice(before).map((f) => f.url)).to.include('/healthz');
  });

  it('logs "request aborted" when the client leaves first, and does not measure it as finished', async () => {
    const before = finished.length;
    await new Promise<void>((resolve) => {
      const req = http.get(`${base}/slow`, { headers: { 'x-request-id': 'e-1' } });
      req.on('error', () => resolve());
      const wait = setInterval(() => {
        if (releaseSlow) {
          clearInterval(wait);
          req.destroy();
          resolve();
        }
      }, 10);
    });
    const [line] = await linesOf('e-1', 1);
    expect(line).to.include({ level: 30, msg: 'request aborted' });
    releaseSlow?.();
    expect(finished.slice(before).map((f) => f.url)).to.not.include('/slow');
  });

  it('gives a request the hook has not seen the service logger as req.log, so its error lines are not lost', () => {
    const app = express();
    const service = log.logger('gateway', 'info');
    requestLog({ logger: service, genReqId: () => 'x', ignore: () => false, onFinish: () => {} }).install(app.request);
    const req = Object.create(app.request) as Request;
    expect(req.log).to.equal(service);
    req.log.error({ code: 'internal' }, 'failed before the hook');
    expect(log.entries().some((e) => e.msg === 'failed before the hook' && e.level === 50)).to.equal(true);
    bindRequestLog(req, { org: 'org_x' }); // nothing of its own to bind: the shared logger is left alone
    req.log.info('after binding');
    expect(log.entries().find((e) => e.msg === 'after binding')!.org).to.equal(undefined);
  });
});
