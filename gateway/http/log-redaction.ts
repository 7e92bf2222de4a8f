import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../../shared/logger.ts';

/**
 * What the access log shows of a request's URL. Image URLs carry their token (a bearer credential for
 * that picture), so every path the router would send to the image route (`/images/:file`: routing
 * ignores case and a trailing slash) is logged as the route alone; the image route marks its requests
 * too. As a second line of defence, anything shaped like a signed token or an API key is masked
 * wherever it appears (query strings included).
 */
const IMAGE_ROUTE = /^\/+images(\/|$)/i;
const JWT_LIKE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const API_KEY_LIKE = /svc_live_[A-Za-z0-9_-]+/gi;
const ADMIN_TOKEN_LIKE = /adm_[A-Za-z0-9_-]{16,}/g;

export function urlForLog(req: IncomingMessage & { redactedUrl?: string; originalUrl?: string }): string {
  if (req.redactedUrl) return req.redactedUrl;
  const url = String(req.originalUrl ?? req.url ?? '');
  const q = url.indexOf('?');
  const pathname = q >= 0 ? url.slice(0, q) : url;
  if (IMAGE_ROUTE.test(pathname)) return '/images/…';
  return url.replace(JWT_LIKE, '…').replace(API_KEY_LIKE, 'svc_live_…').replace(ADMIN_TOKEN_LIKE, 'adm_…');
}

/**
 * The access log's own fields, given the raw request and response (pino-http with wrapSerializers
 * off: no full copy of the request's and the response's headers is built per request only to be
 * dropped). The request: its id, method and masked URL; the response: its status. Org and key are
 * bound by the /v1 gate and the image route.
 */
export const accessLogSerializers = {
  req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, url: urlForLog(req) }),
  res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
};

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id): the caller's when well-formed, else a fresh UUID. */
    id: string;
    /** The request's logger: its lines carry `req` (and the org and key once the gate bound them). */
    log: Logger;
  }
}

const kState = Symbol('requestLog');

interface RequestLogState {
  req: IncomingMessage;
  /** Date.now() at the start, for `responseTime` (ms, as pino-http gave it). */
  startMs: number;
  /** performance.now() at the start, for the latency histogram. */
  startPerf: number;
  /** Bindings given before anyone asked for `req.log` (the gate's org and key). */
  bound: Record<string, unknown> | null;
  child: Logger | null;
  logged: boolean;
  /** No access line (decided on the URL as it came, before any router rewrote it). */
  ignored: boolean;
}

type WithState = { [kState]?: RequestLogState };

export interface RequestLogOptions {
  logger: Logger;
  /** The request's id; it may set X-Request-Id on the response. */
  genReqId(req: IncomingMessage, res: ServerResponse): string;
  /** Requests that get no access-log line (probes). */
  ignore(req: IncomingMessage): boolean;
  /** Called once a response has finished (not for one closed before it finished), with its duration. */
  onFinish(req: IncomingMessage, res: ServerResponse, seconds: number): void;
}

/**
 * The access log and the response hook, as pino-http gave them (same lines, same fields, same order:
 * `req`, the bound org and key, `res`, `responseTime`, "request completed" / "request aborted" /
 * "request errored" at error level for an error or a 5xx), for less per request: `req.log`, a child
 * logger, is made only when something asks for it (an error line, a second binding); otherwise the
 * one line goes out through a logger made once, with the bindings as fields, which pino writes as the
 * same JSON. One shared listener function (no closures) serves the line and `onFinish`.
 */
export function requestLog(opts: RequestLogOptions): { middleware: RequestHandler; install(request: object): void } {
  // the access log's serializers, as pino-http installed them on its own child (wrapSerializers off)
  const logger = opts.logger.child({}, { serializers: accessLogSerializers });
  const childOf = (s: RequestLogState): Logger => {
    if (!s.child) {
      s.child = logger.child({ req: s.req });
      if (s.bound) s.child.setBindings(s.bound);
      s.bound = null;
    }
    return s.child;
  };
  function onEnd(this: ServerResponse & WithState, err?: Error): void {
    this.removeListener('close', onEnd);
    this.removeListener('finish', onEnd);
    this.removeListener('error', onEnd);
    const s = this[kState]!;
    if (s.logged) return;
    s.logged = true;
    if (this.writableFinished) opts.onFinish(s.req, this, (performance.now() - s.startPerf) / 1000);
    if (s.ignored && !err) return;
    const responseTime = Date.now() - s.startMs;
    const line = s.child ?? logger;
    const fields: Record<string, unknown> = s.child ? {} : { req: s.req, ...s.bound };
    fields.res = this;
    if (err || this.statusCode >= 500) {
      fields.err = err ?? new Error(`failed with status code ${this.statusCode}`);
      fields.responseTime = responseTime;
      line.error(fields, 'request errored');
      return;
    }
    fields.responseTime = responseTime;
    line.info(fields, !s.req.readableAborted && this.writableEnded ? 'request completed' : 'request aborted');
  }
  const middleware: RequestHandler = (req, res, next) => {
    req.id = opts.genReqId(req, res);
    const s: RequestLogState = { req, startMs: Date.now(), startPerf: performance.now(), bound: null, child: null, logged: false, ignored: opts.ignore(req) };
    (req as WithState)[kState] = s;
    (res as WithState)[kState] = s;
    res.on('close', onEnd);
    res.on('finish', onEnd);
    res.on('error', onEnd);
    next();
  };
  return {
    middleware,
    /** Serves `req.log` for the app's requests (`app.request`), made on first use. */
    install(request: object) {
      Object.defineProperty(request, 'log', {
        configurable: true,
        get(this: IncomingMessage & WithState) {
          const s = this[kState];
          return s ? childOf(s) : undefined;
        },
      });
    },
  };
}

/**
 * Adds fields to every later line of the request's log (the access line included), like
 * `req.log.setBindings`, without making the request's child logger when nothing else needs it.
 */
export function bindRequestLog(req: IncomingMessage, bindings: Record<string, unknown>): void {
  const s = (req as WithState)[kState];
  if (!s) {
    req.log?.setBindings?.(bindings);
    return;
  }
  if (s.child || s.bound) req.log.setBindings(bindings);
  else s.bound = bindings;
}
