import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { ServiceError } from '../../shared/errors.ts';
import { CATALOG_INVALIDATION } from '../auth/authenticator.ts';
import type { InvalidationBus } from '../auth/invalidation-bus.ts';
import type { Queryable } from '../db/database.ts';

/**
 * Cross-origin access for browsers (docs/api.md, "Browsers and CORS").
 *
 * `/images/*` is a public, signed resource: any page may fetch() it and draw it on a canvas.
 * `/v1` answers pages whose origin the gateway setting (CORS_ALLOWED_ORIGINS) or an organisation's
 * contract (`allowed_origins`) lists. API keys travel in a header, never in cookies, so no
 * credentials mode is offered.
 */

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** An Origin allowed only through some contract's list: kept after authentication if it is the caller's. */
      corsContractOrigin?: string;
    }
  }
}

/** What a browser may read of a /v1 answer besides the CORS-safelisted headers. */
export const V1_EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id'];
/** What a page may send to /v1 beyond the safelisted request headers. */
export const V1_ALLOWED_HEADERS = ['X-Api-Key', 'Content-Type', 'X-Request-Id'];
const V1_METHODS = ['GET', 'HEAD'];
const PREFLIGHT_MAX_AGE_S = 600;

/** A preflight is an OPTIONS request that names the method it asks for; a plain OPTIONS is not. */
export function isPreflight(req: Request): boolean {
  return req.method === 'OPTIONS' && typeof req.headers.origin === 'string' && typeof req.headers['access-control-request-method'] === 'string';
}

/** The origins the active contracts list, as one set (preflights) and per organisation (answers). */
export interface ContractOriginSnapshot {
  any: ReadonlySet<string>;
  byOrg: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface ContractOrigins {
  snapshot(): Promise<ContractOriginSnapshot>;
}

/**
 * Reads every active contract's origins in one query and keeps the answer for `ttlMs`; a contract
 * change heard on the invalidation bus drops it at once (other instances: within the TTL when the
 * bus is in-process only). Preflights are answered from here, so a flood of them costs no queries.
 */
export function createContractOrigins(opts: { db: Queryable; bus?: InvalidationBus; ttlMs?: number }): ContractOrigins {
  const ttlMs = opts.ttlMs ?? 5_000;
  let cached: { at: number; value: Promise<ContractOriginSnapshot> } | null = null;
  let generation = 0;
  opts.bus?.onInvalidate((orgId) => {
    if (orgId === CATALOG_INVALIDATION) return;
    generation++;
    cached = null;
  });
  const load = async (): Promise<ContractOriginSnapshot> => {
    const rows = await opts.db.query<{ org_id: string; allowed_origins: string[] }>(
      'SELECT org_id, allowed_origins FROM contracts WHERE active AND cardinality(allowed_origins) > 0',
    );
    const any = new Set<string>();
    const byOrg = new Map<string, Set<string>>();
    for (const r of rows) {
      byOrg.set(r.org_id, new Set(r.allowed_origins));
      for (const o of r.allowed_origins) any.add(o);
    }
    return { any, byOrg };
  };
  return {
    snapshot() {
      const now = Date.now();
      if (cached && now - cached.at < ttlMs) return cached.value;
      const gen = generation;
      const value = load();
      const entry = { at: now, value };
      // a load that began before an invalidation answers its own caller but is not kept
      if (gen === generation) cached = entry;
      value.then(
        () => {
          if (gen !== generation && cached === entry) cached = null;
        },
        () => {
          if (cached === entry) cached = null;
        },
      );
      return value;
    },
  };
}

/**
 * `/images/*`: `Access-Control-Allow-Origin: *` and `Cross-Origin-Resource-Policy: cross-origin` on
 * every answer (refusals too, so a page can read why); preflights (a conditional fetch sends
 * If-None-Match) are answered here. A plain OPTIONS goes on to the 405 handler as before.
 */
export function imageCors(): RequestHandler {
  const handle = cors({
    origin: '*',
    methods: V1_METHODS,
    allowedHeaders: ['If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['ETag', 'Content-Length', 'X-Request-Id', 'Retry-After'],
    maxAge: 86_400,
  });
  return (req, res, next) => {
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (req.method === 'OPTIONS' && !isPreflight(req)) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      next();
      return;
    }
    handle(req, res, next);
  };
}

export interface V1Cors {
  /** Before authentication: answers preflights (never billed) and marks answers a page may read. */
  admit: RequestHandler;
  /** After authentication: an origin allowed only by contracts stays allowed only for its organisation. */
  narrow: RequestHandler;
}

export function v1Cors(opts: { gatewayOrigins: readonly string[]; contracts: ContractOrigins }): V1Cors {
  const gateway = new Set(opts.gatewayOrigins);
  const preflight = cors({
    origin: true, // reflect: only reached for an origin checked below
    methods: V1_METHODS,
    allowedHeaders: V1_ALLOWED_HEADERS,
    exposedHeaders: V1_EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
  const allow = (res: Parameters<RequestHandler>[1], origin: string) => {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', V1_EXPOSED_HEADERS.join(','));
  };
  const EMPTY: ContractOriginSnapshot = { any: new Set(), byOrg: new Map() };
  // A database hiccup while reading the contracts' origins must not fail the API call itself: the
  // answer then goes out as for an origin nobody lists (and the next request reads them again).
  const snapshot = (req: Request) =>
    opts.contracts.snapshot().catch((err: unknown) => {
      req.log?.error({ err }, 'CORS: could not read the contracts\' allowed origins');
      return EMPTY;
    });
  const admitContractOrigin: RequestHandler = async (req, res, next) => {
    const origin = req.headers.origin!;
    const byContract = (await snapshot(req)).any.has(origin);
    if (isPreflight(req)) {
      // A preflight carries no key, so it cannot name the organisation: any active contract's list counts.
      if (byContract) preflight(req, res, next);
      else next(new ServiceError('forbidden', 'This origin may not call the API from a browser'));
      return;
    }
    if (byContract) {
      // Until the key names the organisation (401, 403 and 429 of the gate), the preflight's rule applies.
      allow(res, origin);
      res.locals.corsContractOrigin = origin;
    }
    next();
  };
  const narrowToOrganization: RequestHandler = async (req, res, next) => {
    const own = (await snapshot(req)).byOrg.get(res.locals.principal.orgId);
    if (!own?.has(res.locals.corsContractOrigin!)) {
      res.removeHeader('Access-Control-Allow-Origin');
      res.removeHeader('Access-Control-Expose-Headers');
    }
    next();
  };
  return {
    // synchronous for the common cases (no Origin, or the gateway's own): no promise per API call
    admit: (req, res, next) => {
      // Whether an answer carries Access-Control-Allow-Origin depends on Origin: caches must key on it.
      // (no middleware before this one sets Vary: set it outright rather than parse and merge a list)
      if (!res.hasHeader('Vary')) res.setHeader('Vary', 'Origin');
      else res.vary('Origin');
      const origin = req.headers.origin;
      if (typeof origin !== 'string') {
        next();
        return;
      }
      if (gateway.has(origin)) {
        if (isPreflight(req)) {
          preflight(req, res, next);
          return;
        }
        allow(res, origin);
        next();
        return;
      }
      return admitContractOrigin(req, res, next);
    },
    narrow: (req, res, next) => {
      if (res.locals.corsContractOrigin === undefined || !res.locals.principal) {
        next();
        return;
      }
      return narrowToOrganization(req, res, next);
    },
  };
}
