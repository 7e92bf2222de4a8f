import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middleware as one: each runs when the one before it calls `next()`; `next(err)` (or a
 * thrown error, or a rejected promise, as Express 5 treats them) leaves the chain for the app's error
 * handling, and `next()` after the last one continues past the chain. The same behaviour as handing
 * Express the handlers one by one, for one router layer instead of one each: the gateway's /v1 gate
 * (CORS, metrics label, key and limiter, usage) runs on every API call, and each layer costs a path
 * match and a trip through the router (docs/performance-gateway.md, "Issue 10, fourth pass").
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  if (handlers.length === 0) throw new Error('chain needs at least one handler');
  const chained: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    let i = 0;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      next(err ?? new Error('a middleware rejected without a reason'));
    };
    const step: NextFunction = (err?: unknown) => {
      if (settled) return;
      // 'route' means "skip the rest of this route": for a middleware, as Express has it, go on to the next
      if (err !== undefined && err !== null && err !== 'route') {
        settled = true;
        next(err);
        return;
      }
      const h = handlers[i++];
      if (h === undefined) {
        settled = true;
        next();
        return;
      }
      try {
        const r: unknown = h(req, res, step);
        if (r !== null && typeof r === 'object' && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(undefined, fail);
      } catch (e) {
        fail(e);
      }
    };
    step();
  };
  // a router at the end stays visible to what walks the app's routes (405 Allow lists, the OpenAPI test)
  const last = handlers[handlers.length - 1] as unknown as { stack?: unknown[] };
  return last.stack ? Object.assign(chained, { stack: last.stack }) : chained;
}
