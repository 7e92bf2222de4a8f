import { Router, type RequestHandler } from 'express';
import { parseBody } from '../parse-body.ts';
import crypto from 'node:crypto';
import { z } from 'zod';
import { displayName } from '../../display-name.ts';
import { ServiceError } from '../../../shared/errors.ts';
import { canonicalOrigin } from '../../../shared/origins.ts';
import { FORMATS } from '../../../shared/render-options.ts';
import type { AdminService } from '../../admin/admin-service.ts';
import type { AssetSetDirectory } from '../../catalog/asset-sets.ts';
import { CatalogFileError, parseCatalogCsv, validateCatalog } from '../../catalog/catalog-file.ts';
import { exportCatalog } from '../../catalog/export.ts';
import { importCatalog } from '../../catalog/import.ts';
import type { Database } from '../../db/database.ts';
import type { SignInLinks } from '../../dashboard/sign-in-links.ts';
import { createAddressThrottle, createFailureThrottle, type FailureThrottle } from '../../auth/failure-throttle.ts';
import { ID_RE, VIEW_RE, validateParams } from '../path-params.ts';
import { clientAddress } from '../request-guards.ts';
import { methodNotAllowed } from '../method-not-allowed.ts';
import { rejectMalformedQuery } from '../errors.ts';
import type { WebhookEndpoints } from '../../events/endpoints.ts';
import { addWebhookAdminRoutes } from './admin-webhooks.ts';

function requireAdmin(token: string, throttles: FailureThrottle[]): RequestHandler {
  const expected = crypto.createHash('sha256').update(token).digest();
  return (req, _res, next) => {
    const address = clientAddress(req);
    for (const t of throttles) t.check(address); // 429 while this address (or its /64) is over its limit
    // RFC 9110: the scheme is case-insensitive ("bearer", "BEARER")
    const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    const given = crypto.createHash('sha256').update(m?.[1] ?? '').digest();
    if (!m || !crypto.timingSafeEqual(given, expected)) {
      for (const t of throttles) t.fail(address);
      next(new ServiceError('unauthorized', 'A valid admin bearer token is required'));
      return;
    }
    next();
  };
}


const orgBody = z.object({ name: displayName(200) });
const contractBody = z.object({
  categories: z.array(z.string().min(1)).max(100),
  allowed_formats: z.array(z.enum(FORMATS)).max(3),
  rpm_limit: z.number().int().min(1).max(1_000_000),
  monthly_quota: z.number().int().min(0).max(2_000_000_000),
  active: z.boolean(),
  // optional: a body without it (DESIGN.md's shape) keeps the contract's current list
  allowed_origins: z
    .array(z.string().max(255).transform((o, ctx) => canonicalOrigin(o) ?? (ctx.addIssue({ code: 'custom', message: 'not an origin (scheme://host[:port], http or https)' }), z.NEVER)))
    .max(50)
    .optional(),
  // optional like allowed_origins: absent keeps the contract's features (a new contract: none); the
  // names are checked by the service, which refuses unknown ones naming them
  features: z.array(z.string().max(64)).max(20).optional(),
});
const keyBody = z.object({ name: displayName(200).optional() });
// RFC 5321 §4.5.3.1: a mailbox is at most 254 characters (a 256-octet path less its brackets), its
// local part at most 64; a longer one could never receive mail
const memberBody = z.object({
  email: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .email()
    .refine((e) => e.lastIndexOf('@') <= 64, 'its part before the @ must be at most 64 characters'),
});
const publishBody = z.object({ published: z.boolean() });

/** The admin API of DESIGN.md, exactly as written there, plus listing and catalog calls. */
export function adminRoutes(deps: {
  admin: AdminService;
  adminToken: string;
  db: Database;
  assets: AssetSetDirectory;
  /** Failed admin authentications per client address and minute before 429 (default 20; an IPv6 /64 five times that). */
  authFailuresPerMinute: number;
  /** Reads request bodies (body.ts): runs right after the token check, so a refused call's body is never read. */
  bodyParser?: RequestHandler;
  /** Dashboard sign-in links (absent when the dashboard is not served). */
  signInLinks?: SignInLinks;
  /** Webhook endpoints (docs/events.md); absent: the webhook calls are not served. */
  webhooks?: WebhookEndpoints;
}): Router {
  const r = Router();
  const { admin } = deps;
  // Per client address, and per IPv6 /64 at five times that: a client that picks new addresses in its
  // /64 is still stopped, while neighbours sharing a /64 (some hosts hand one to many customers) need
  // five times the failures to lock the operator out.
  const limit = deps.authFailuresPerMinute;
  const message = 'Too many failed authentication attempts from this address, retry later';
  r.use(
    requireAdmin(deps.adminToken, [
      createFailureThrottle({ limit, windowMs: 60_000, message }),
      createAddressThrottle({ limit: limit * 5, windowMs: 60_000, message }),
    ]),
  );
  r.use(rejectMalformedQuery);
  if (deps.bodyParser) r.use(deps.bodyParser);
  // ids and view ids are checked against their alphabets before any query (404 otherwise)
  validateParams(r, { org: ID_RE, id: ID_RE, view: VIEW_RE });
  const param = (v: unknown) => String(v);

  r.get('/categories', async (_req, res) => {
    res.json({ categories: await admin.listCategories() });
  });
  r.get('/organizations', async (_req, res) => {
    res.json({ organizations: await admin.listOrganizations() });
  });
  r.post('/organizations', async (req, res) => {
    res.status(201).json(await admin.createOrganization(parseBody(orgBody, req.body).name));
  });
  r.get('/organizations/:org', async (req, res) => {
    res.json(await admin.getOrganization(param(req.params.org)));
  });
  r.get('/organizations/:org/contract', async (req, res) => {
    const c = await admin.getContract(param(req.params.org));
    if (!c) throw new ServiceError('not_found', 'Contract not found');
    res.json(c);
  });
  r.put('/organizations/:org/contract', async (req, res) => {
    res.json(await admin.putContract(param(req.params.org), parseBody(contractBody, req.body)));
  });
  r.post('/organizations/:org/keys', async (req, res) => {
    res.status(201).json(await admin.createKey(param(req.params.org), parseBody(keyBody, req.body).name ?? null));
  });
  r.post('/keys/:id/revoke', async (req, res) => {
    res.json(await admin.revokeKey(param(req.params.id)));
  });
  r.post('/organizations/:org/members', async (req, res) => {
    res.status(201).json(await admin.addMember(param(req.params.org), parseBody(memberBody, req.body).email));
  });
  r.post('/members/:id/ban', async (req, res) => {
    res.json(await admin.setBanned(param(req.params.id), true));
  });
  r.post('/members/:id/unban', async (req, res) => {
    res.json(await admin.setBanned(param(req.params.id), false));
  });
  if (deps.signInLinks) {
    const links = deps.signInLinks;
    r.post('/members/:id/sign-in-links', async (req, res) => {
      res.status(201).json(await links.issue(param(req.params.id)));
    });
  }
  r.get('/organizations/:org/usage', async (req, res) => {
    res.json(await admin.usage(param(req.params.org)));
  });
  r.patch('/vehicles/:id', async (req, res) => {
    res.json(await admin.setVehiclePublished(param(req.params.id), parseBody(publishBody, req.body).published));
  });
  r.patch('/vehicles/:id/views/:view', async (req, res) => {
    res.json(await admin.setViewPublished(param(req.params.id), param(req.params.view), parseBody(publishBody, req.body).published));
  });
  r.post('/catalog/import', async (req, res) => {
    try {
      const file = req.is('text/csv') ? parseCatalogCsv(String(req.body)) : validateCatalog(req.body);
      const imported = await importCatalog(deps.db, deps.assets, file);
      await admin.catalogChanged(); // image downloads re-check publication
      res.json({ imported });
    } catch (err) {
      if (err instanceof CatalogFileError) throw new ServiceError('bad_request', err.message);
      throw err;
    }
  });
  r.get('/catalog/export', async (_req, res) => {
    res.json(await exportCatalog(deps.db));
  });
  if (deps.webhooks) addWebhookAdminRoutes(r, deps.webhooks);
  methodNotAllowed(r); // a known path with another method: 405 with Allow
  return r;
}
