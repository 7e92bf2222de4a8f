import path from 'node:path';
import { parseBody } from '../http/parse-body.ts';
import { fileURLToPath } from 'node:url';
import cookieParser from 'cookie-parser';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { displayName } from '../display-name.ts';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import type { AdminService } from '../admin/admin-service.ts';
import { findPrincipalForOrg } from '../auth/principal.ts';
import type { CatalogRepo } from '../catalog/catalog-repo.ts';
import type { Database } from '../db/database.ts';
import { adminBodyParser, type BodyLimits } from '../http/body.ts';
import { notFoundHandler } from '../http/errors.ts';
import { clientAddress } from '../http/request-guards.ts';
import { ID_RE, validateParams } from '../http/path-params.ts';
import { methodNotAllowed } from '../http/method-not-allowed.ts';
import { accountSummary } from '../http/routes/v1-me.ts';
import type { Limiter } from '../limits/limiter.ts';
import { recordAdmittedCalls } from '../usage/record-middleware.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import { parseMonthParam, usageReport } from '../usage/report.ts';
import { checkCsrfToken, checkSameOrigin, isStateChanging } from './csrf.ts';
import { createKey, listKeys } from './keys.ts';
import { findMember, findMembersWithPassword, setPasswordHash, type MemberRow } from './members.ts';
import { checkNewPassword, hashPassword, verifyNothing, verifyPassword } from './passwords.ts';
import { playgroundGate, SESSION_ENDED } from './playground.ts';
import { dashboardSecurityHeaders } from './security-headers.ts';
import { HOST_SESSION_COOKIE, SESSION_COOKIE, type Session, type Sessions } from './sessions.ts';
import type { SignInLinks } from './sign-in-links.ts';
import { dashboardStatic } from './static.ts';
import { createAddressThrottle, createFailureThrottle } from '../auth/failure-throttle.ts';
import { bindRequestLog } from '../http/request-log.ts';
import type { WebhookEndpoints } from '../events/endpoints.ts';
import { webhookBody } from '../http/routes/admin-webhooks.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      session?: Session;
    }
  }
}

const DEFAULT_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dashboard/dist');

/** What service.ts builds for the dashboard (app.ts adds the shared parts: DashboardDeps). */
export interface DashboardOptions {
  sessions: Sessions;
  signInLinks: SignInLinks;
  /** dashboard/dist by default. */
  distDir?: string | null;
  sessionMaxSeconds: number;
  signInThrottle: { perAddress: number; perEmail: number; windowSeconds: number };
}

export interface DashboardDeps extends DashboardOptions {
  db: Database;
  admin: AdminService;
  limiter: Limiter;
  recorder: UsageRecorder;
  repo: CatalogRepo;
  publicBaseUrl: () => string;
  /** The /v1 routes without their gate: the playground mirror runs them behind the session's. */
  v1: Router;
  bodyLimits: BodyLimits;
  /** The organisation's webhook endpoints (docs/events.md); absent: the Webhooks calls answer 404. */
  webhooks?: WebhookEndpoints;
}


const linkBody = z.object({ token: z.string().min(1).max(200) });
const passwordSignInBody = z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(1024) });
const passwordBody = z.object({ password: z.string(), current_password: z.string().max(1024).optional() });
const keyBody = z.object({ name: displayName(200) });

const memberDto = (s: { memberId: string; email: string; hasPassword: boolean }) => ({ id: s.memberId, email: s.email, has_password: s.hasPassword });

/**
 * /dashboard: the built pages, and under /dashboard/api the JSON API the pages call with a session
 * cookie (never an API key): sign-in, session, password, contract, keys, usage, and the playground
 * mirror of /v1 (docs/dashboard.md).
 */
export function dashboardRoutes(deps: DashboardDeps): Router {
  const r = Router();
  r.use(dashboardSecurityHeaders(deps.publicBaseUrl));
  r.get('/', (req, res, next) => {
    // "/dashboard" → "/dashboard/" so that the pages' relative URLs resolve under it
    const [p, q] = req.originalUrl.split('?', 2) as [string, string | undefined];
    if (!p.endsWith('/')) res.redirect(301, `${p}/${q !== undefined ? `?${q}` : ''}`);
    else next();
  });
  r.use('/api', apiRoutes(deps));
  r.use(dashboardStatic(deps.distDir ?? DEFAULT_DIST));
  return r;
}

function apiRoutes(deps: DashboardDeps): Router {
  const { db, sessions } = deps;
  const api = Router();
  const windowMs = deps.signInThrottle.windowSeconds * 1000;
  const byAddress = createAddressThrottle({ limit: deps.signInThrottle.perAddress, windowMs });
  const byEmail = createFailureThrottle({ limit: deps.signInThrottle.perEmail, windowMs });
  // docs/dashboard.md, "Sessions": __Host-vis_session (Secure, Path=/) behind https, vis_session on /dashboard over http
  const sessionCookie = () =>
    deps.publicBaseUrl().startsWith('https:')
      ? { name: HOST_SESSION_COOKIE, options: { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: true } }
      : { name: SESSION_COOKIE, options: { httpOnly: true, sameSite: 'strict' as const, path: '/dashboard', secure: false } };

  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  api.use((req, _res, next) => {
    if (isStateChanging(req)) checkSameOrigin(req, deps.publicBaseUrl());
    next();
  });
  api.use(cookieParser());
  api.use(adminBodyParser({ small: deps.bodyLimits, large: deps.bodyLimits, largeRoute: () => false }));
  validateParams(api, { id: ID_RE });

  async function startSession(res: Response, m: MemberRow) {
    const s = await sessions.create(m.id, m.org_id);
    const c = sessionCookie();
    res.cookie(c.name, s.id, { ...c.options, maxAge: deps.sessionMaxSeconds * 1000 });
    res.json({ member: { id: m.id, email: m.email, has_password: m.password_hash !== null }, csrf_token: s.csrfToken });
  }

  api.post('/sign-in/link', async (req, res) => {
    const address = clientAddress(req);
    byAddress.check(address);
    const { token } = parseBody(linkBody, req.body);
    const memberId = await deps.signInLinks.redeem(token);
    const m = memberId ? await findMember(db, memberId) : null;
    if (!m) {
      byAddress.fail(address);
      throw new ServiceError('unauthorized', 'The sign-in link is unknown, already used or expired');
    }
    if (m.org_banned) throw new ServiceError('forbidden', MESSAGES.banned);
    await startSession(res, m);
  });

  api.post('/sign-in/password', async (req, res) => {
    const address = clientAddress(req);
    const { email, password } = parseBody(passwordSignInBody, req.body);
    const emailKey = email.toLowerCase();
    byAddress.check(address);
    byEmail.check(emailKey);
    const candidates = await findMembersWithPassword(db, email);
    let match: MemberRow | null = null;
    for (const m of candidates) {
      if (await verifyPassword(m.password_hash!, password)) {
        match = m;
        break;
      }
    }
    if (candidates.length === 0) await verifyNothing(password);
    if (!match) {
      byAddress.fail(address);
      byEmail.fail(emailKey);
      throw new ServiceError('unauthorized', 'The email or password is not correct');
    }
    if (match.org_banned) throw new ServiceError('forbidden', MESSAGES.banned);
    await startSession(res, match);
  });

  // everything below needs a live session, and its CSRF token on state-changing calls
  const requireSession: RequestHandler = async (req, res, next) => {
    // only the name this deployment sets: behind https a plain vis_session (one a subdomain could plant) is not read
    const id = (req.cookies as Record<string, unknown> | undefined)?.[sessionCookie().name];
    const s = typeof id === 'string' ? await sessions.lookup(id) : null;
    if (!s) throw new ServiceError('unauthorized', SESSION_ENDED);
    if (isStateChanging(req)) checkCsrfToken(req, s.csrfToken);
    res.locals.session = s;
    bindRequestLog(req, { org: s.orgId, member: s.memberId });
    next();
  };
  api.use(requireSession);
  const session = (res: Response) => res.locals.session!;
  const orgPrincipal = async (res: Response) => {
    const p = await findPrincipalForOrg(db, session(res).orgId);
    if (!p) throw new ServiceError('unauthorized', SESSION_ENDED);
    return p;
  };

  api.get('/session', (_req, res) => {
    const s = session(res);
    res.json({ member: memberDto(s), organization: { id: s.orgId, name: s.orgName }, csrf_token: s.csrfToken });
  });

  api.post('/sign-out', async (_req, res) => {
    await sessions.revoke(session(res).idHash);
    const c = sessionCookie();
    res.clearCookie(c.name, c.options);
    res.status(204).end();
  });

  api.put('/password', async (req: Request, res) => {
    const s = session(res);
    const input = parseBody(passwordBody, req.body);
    const password = checkNewPassword(input.password);
    const m = await findMember(db, s.memberId);
    if (!m) throw new ServiceError('unauthorized', SESSION_ENDED);
    if (m.password_hash !== null) {
      const emailKey = m.email.toLowerCase();
      byEmail.check(emailKey);
      if (input.current_password === undefined || !(await verifyPassword(m.password_hash, input.current_password))) {
        byEmail.fail(emailKey);
        throw new ServiceError('forbidden', 'The current password is not correct');
      }
    }
    await setPasswordHash(db, s.memberId, await hashPassword(password));
    await sessions.revokeOthers(s.memberId, s.idHash); // a changed password ends the member's other sessions
    res.status(204).end();
  });

  api.get('/contract', async (_req, res) => {
    res.json(await accountSummary({ repo: deps.repo, limiter: deps.limiter }, await orgPrincipal(res)));
  });

  api.get('/keys', async (_req, res) => {
    res.json({ keys: await listKeys(db, deps.recorder, session(res).orgId) });
  });
  api.post('/keys', async (req, res) => {
    res.status(201).json(await createKey(db, deps.admin, session(res).orgId, parseBody(keyBody, req.body).name));
  });
  api.post('/keys/:id/revoke', async (req, res) => {
    res.json(await deps.admin.revokeOrganizationKey(session(res).orgId, String(req.params.id)));
  });

  if (deps.webhooks) {
    // the admin API's endpoint calls, each held to the session's own organisation
    const hooks = deps.webhooks;
    api.get('/webhooks', async (_req, res) => {
      res.json({ webhooks: await hooks.list(session(res).orgId) });
    });
    api.post('/webhooks', async (req, res) => {
      const b = parseBody(webhookBody, req.body);
      res.status(201).json(await hooks.create(session(res).orgId, b.url, b.events ?? []));
    });
    api.delete('/webhooks/:id', async (req, res) => {
      res.json(await hooks.remove(String(req.params.id), session(res).orgId));
    });
    api.post('/webhooks/:id/rotate-secret', async (req, res) => {
      res.json(await hooks.rotateSecret(String(req.params.id), session(res).orgId));
    });
    api.get('/webhooks/:id/deliveries', async (req, res) => {
      res.json({ deliveries: await hooks.deliveries(String(req.params.id), session(res).orgId) });
    });
  }

  api.get('/usage', async (req, res) => {
    const month = parseMonthParam(req.query.month);
    res.json(await usageReport({ db, limiter: deps.limiter, recorder: deps.recorder }, await orgPrincipal(res), month));
  });

  // the playground: the same /v1 routes as the organisation, counted like any /v1 call (key: none).
  // Its GETs spend the quota, and SameSite=Strict still sends the cookie with a same-site <img> or
  // link (a sibling subdomain): so they need the CSRF token too, which no other page can read.
  const requireCsrf: RequestHandler = (req, res, next) => {
    checkCsrfToken(req, session(res).csrfToken);
    next();
  };
  api.use('/v1', requireCsrf, playgroundGate({ db, limiter: deps.limiter }), recordAdmittedCalls(deps.recorder), deps.v1);

  methodNotAllowed(api);
  api.use(notFoundHandler);
  return api;
}
