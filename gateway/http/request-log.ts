import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../../shared/logger.ts';
import { accessLogSerializers } from './log-redaction.ts';

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
 * "request errored" for an error or a 5xx, at warn: the handler logs the error itself), for less per request: `req.log`, a child
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
      // the handler's own line carries the real error and its stack, at error level for a fault of ours:
      // this one only says which answer, at warn, so that an alert on error lines counts each failure once
      fields.err = err ?? { type: 'Error', message: `failed with status code ${this.statusCode}` };
      fields.responseTime = responseTime;
      line.warn(fields, 'request errored');
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
    /**
     * Serves `req.log` for the app's requests (`app.request`), made on first use. A request the hook
     * has not seen (nothing reads one today: the hook is the app's first middleware) gets the service's
     * logger, so an error logged for it is never dropped and `req.log` is what its type says.
     */
    install(request: object) {
      Object.defineProperty(request, 'log', {
        configurable: true,
        get(this: IncomingMessage & WithState): Logger {
          const s = this[kState];
          return s ? childOf(s) : opts.logger;
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
    // not a request of the app with the hook: its logger is shared, so there is nothing of its own to bind
    return;
  }
  if (s.child || s.bound) req.log.setBindings(bindings);
  else s.bound = bindings;
}
