import type { RequestHandler } from 'express';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import { findPrincipalForOrg } from '../auth/principal.ts';
import type { Queryable } from '../db/database.ts';
import { rateLimitHeaders } from '../limits/headers.ts';
import type { Limiter } from '../limits/limiter.ts';

/**
 * The playground's /v1 gate: the session's organisation is the principal (no key), with the same
 * ban and contract rules and the same limiter as a key: its calls count against the organisation's
 * per-minute limit (one window for the playground) and monthly quota.
 */
export function playgroundGate(deps: { db: Queryable; limiter: Limiter }): RequestHandler {
  return async (_req, res, next) => {
    const session = res.locals.session!;
    const p = await findPrincipalForOrg(deps.db, session.orgId);
    if (!p) throw new ServiceError('unauthorized', SESSION_ENDED);
    if (p.banned) throw new ServiceError('forbidden', MESSAGES.banned);
    if (!p.contract || !p.contract.active) throw new ServiceError('forbidden', MESSAGES.noContract);
    const decision = await deps.limiter.consume({ keyId: p.keyId, orgId: p.orgId, rpmLimit: p.contract.rpmLimit, monthlyQuota: p.contract.monthlyQuota });
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const code = decision.reason ?? 'rate_limited';
      // the playground has no key: its minute window is its own, and the message says so
      throw new ServiceError(code, code === 'quota_exceeded' ? MESSAGES.quotaExceeded : PLAYGROUND_RATE_LIMITED, { headers });
    }
    res.set(headers);
    res.locals.principal = p;
    next();
  };
}

export const PLAYGROUND_RATE_LIMITED = 'Requests per minute exceeded for the dashboard playground';

export const SESSION_ENDED = 'Sign in to the dashboard: the session is missing or has ended';
