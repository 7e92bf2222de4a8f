import type { Router } from 'express';
import { ServiceError } from '../../shared/errors.ts';

interface LayerLike {
  route?: { path: unknown; methods: Record<string, boolean> };
  slash?: boolean;
  /** A mounted router, or a wrapper of one that names it (`router`: app.ts skipV1Subpaths). */
  handle?: { stack?: LayerLike[]; router?: Router };
}

/** The route paths and methods of `router` and of the routers mounted at its root, by the router that owns each. */
function collectRoutes(owner: Router, stack: LayerLike[], out: Map<Router, Map<string, Set<string>>>): void {
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      const routes = out.get(owner) ?? new Map<string, Set<string>>();
      out.set(owner, routes);
      const set = routes.get(layer.route.path) ?? new Set<string>();
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') set.add(m.toUpperCase());
      routes.set(layer.route.path, set);
    } else if (layer.slash && layer.handle?.stack) {
      collectRoutes((layer.handle.router ?? layer.handle) as Router, layer.handle.stack, out); // a router mounted at this router's root
    }
  }
}

/**
 * For every route path known to `router` (and to routers mounted at its root), answers other
 * methods with 405 `method_not_allowed` and an `Allow` header; OPTIONS gets 204 with `Allow`.
 * Call it after the routes are registered and before the 404 handler.
 */
export function methodNotAllowed(router: Router): void {
  const owners = new Map<Router, Map<string, Set<string>>>();
  collectRoutes(router, (router as unknown as { stack: LayerLike[] }).stack, owners);
  // on the router that owns the route: past its end Express answers OPTIONS itself (200, a text body)
  // and a parent's handler would come too late
  for (const [owner, routes] of owners) for (const [p, methods] of routes) answerOtherMethods(owner, p, methods);
}

function answerOtherMethods(router: Router, p: string, methods: Set<string>): void {
  if (methods.has('GET')) methods.add('HEAD');
  const use = [...methods].sort().join(', ');
  // every method the resource answers (RFC 9110 §10.2.1), OPTIONS included, in the 405 as in the 204
  const allow = `${use}, OPTIONS`;
  router.all(p, (req, res, next) => {
    if (methods.has(req.method)) {
      next(); // e.g. a route that passed (next()) on its own: fall through to 404
      return;
    }
    if (req.method === 'OPTIONS') {
      res.set('Allow', allow).status(204).end();
      return;
    }
    next(new ServiceError('method_not_allowed', `Method ${req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } }));
  });
}
