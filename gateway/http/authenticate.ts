import type { RequestHandler } from 'express';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import { rateLimitHeaders } from '../limits/headers.ts';
import type { Limiter } from '../limits/limiter.ts';
import { bindRequestLog } from './request-log.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      principal: Principal;
    }
  }
}

/**
 * The /v1 gate in the spec's order: key (401), ban (403), contract (403) — none of them billed —
 * then both limits in one atomic step; an admitted request is counted whatever the route answers.
 */
export function authenticateAndLimit(auth: Authenticator, limiter: Limiter): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    const principal = await auth.authenticate(key);
    const contract = principal.contract!;
    const decision = await limiter.consume({
      keyId: principal.keyId,
      orgId: principal.orgId,
      rpmLimit: contract.rpmLimit,
      monthlyQuota: contract.monthlyQuota,
    });
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const code = decision.reason ?? 'rate_limited';
      throw new ServiceError(code, code === 'quota_exceeded' ? MESSAGES.quotaExceeded : MESSAGES.rateLimited, { headers });
    }
    for (const name in headers) res.setHeader(name, headers[name]!); // plain strings: no need for res.set()'s checks
    res.locals.principal = principal;
    bindRequestLog(req, { org: principal.orgId, key: principal.keyId });
    next();
  };
}
