/**
 * docs/openapi.json against the spec, the Express app and real answers:
 * - it is OpenAPI 3.1 and documents every endpoint of the spec's table, the admin table of DESIGN.md
 *   and the operational routes (a fixed list), and every route the Express app registers;
 * - every $ref resolves, every path template parameter is declared;
 * - real answers of a gateway on embedded PGlite (temp DATA_DIR) carry exactly the documented fields
 *   (every required one, of the documented type, and none undocumented), the documented headers, and
 *   the documented error messages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { AppDeps } from '../../gateway/http/app.ts';
import { createHttpMetrics } from '../../gateway/http/metrics.ts';
import { buildApp } from '../../gateway/http/app.ts';
import { startGateway, type GatewayHandle } from '../../gateway/service.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { createLogger } from '../../shared/logger.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };
const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8')) as JsonObject;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves a local JSON pointer ('#/a/b'); undefined when it does not resolve. */
function pointer(ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let cur: Json | undefined = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(cur) || !(part in cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function deref(node: Json | undefined): JsonObject {
  let cur = node;
  for (let i = 0; i < 20 && isObject(cur) && typeof cur.$ref === 'string'; i++) cur = pointer(cur.$ref);
  if (!isObject(cur)) throw new Error(`does not resolve to an object: ${JSON.stringify(node)}`);
  return cur;
}

/** Path shape for comparisons: every template parameter (and `{a}.{b}`) becomes `{}`, Express `:x` too. */
function shape(p: string): string {
  const s = p.replace(/\{[^}]+\}(?:\.\{[^}]+\})?/g, '{}').replace(/:[A-Za-z_]\w*/g, '{}');
  return s.length > 1 ? s.replace(/\/+$/, '') : s;
}

function documented(method: string, p: string): JsonObject | undefined {
  const paths = doc.paths as JsonObject;
  const key = Object.keys(paths).find((k) => shape(k) === shape(p));
  const item = key ? (paths[key] as JsonObject) : undefined;
  const op = item?.[method.toLowerCase()];
  return isObject(op) ? op : undefined;
}

// --- the fixed lists: spec section 4, DESIGN.md admin table (+ the extra admin calls), operations ---
const SPEC_ENDPOINTS: Array<[string, string]> = [
  ['GET', '/v1'],
  ['GET', '/v1/me'],
  ['GET', '/v1/makes'],
  ['GET', '/v1/makes/{make}'],
  ['GET', '/v1/makes/{make}/models'],
  ['GET', '/v1/makes/{make}/models/{model}'],
  ['GET', '/v1/makes/{make}/models/{model}/{year}'],
  ['GET', '/v1/makes/{make}/models/{model}/{year}/{variant}'],
  ['GET', '/v1/makes/{make}/models/{model}/{year}/{view}'],
  ['GET', '/v1/makes/{make}/models/{model}/{year}/{variant}/{view}'],
  ['GET', '/v1/search'],
  ['GET', '/v1/colors'],
  ['GET', '/v1/views'],
];
/** Beyond the spec's table (issue 9): the batch call and the usage report; the spin call (issue 34). */
const EXTRA_V1_ENDPOINTS: Array<[string, string]> = [
  ['GET', '/v1/vehicles/{vehicle_id}/images'],
  ['GET', '/v1/vehicles/{vehicle_id}/spin'],
  ['GET', '/v1/usage'],
];
const ADMIN_ENDPOINTS: Array<[string, string]> = [
  ['GET', '/admin/v1/categories'],
  ['POST', '/admin/v1/organizations'],
  ['PUT', '/admin/v1/organizations/{org}/contract'],
  ['POST', '/admin/v1/organizations/{org}/keys'],
  ['POST', '/admin/v1/keys/{id}/revoke'],
  ['POST', '/admin/v1/organizations/{org}/members'],
  ['POST', '/admin/v1/members/{id}/ban'],
  ['POST', '/admin/v1/members/{id}/unban'],
  ['GET', '/admin/v1/organizations/{org}/usage'],
  ['PATCH', '/admin/v1/vehicles/{id}'],
  ['PATCH', '/admin/v1/vehicles/{id}/views/{view}'],
  // beyond DESIGN.md's table
  ['GET', '/admin/v1/organizations'],
  ['GET', '/admin/v1/organizations/{org}'],
  ['GET', '/admin/v1/organizations/{org}/contract'],
  ['POST', '/admin/v1/catalog/import'],
  ['GET', '/admin/v1/catalog/export'],
];
const OTHER_ENDPOINTS: Array<[string, string]> = [
  ['GET', '/images/{token}.{ext}'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/docs/openapi.json'],
  ['GET', '/docs'],
];

// --- a small checker: type, enum/const, pattern, required, no undocumented properties, items, oneOf ---
function check(schemaNode: Json | undefined, value: unknown, at: string, errors: string[]): void {
  const schema = deref(schemaNode);
  if (Array.isArray(schema.oneOf)) {
    const passing = schema.oneOf.filter((s) => {
      const e: string[] = [];
      check(s, value, at, e);
      return e.length === 0;
    });
    if (passing.length !== 1) errors.push(`${at}: matches ${passing.length} of the oneOf alternatives`);
    return;
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const typeOf = (v: unknown): string[] => {
    if (v === null) return ['null'];
    if (Array.isArray(v)) return ['array'];
    if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'number'] : ['number'];
    return [typeof v];
  };
  if (types.length > 0 && !typeOf(value).some((t) => types.includes(t))) {
    errors.push(`${at}: expected ${types.join('|')}, got ${JSON.stringify(value)}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as Json)) errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if ('const' in schema && schema.const !== value) errors.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
    errors.push(`${at}: "${value}" does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${at}: ${value} < ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${at}: ${value} > ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items !== undefined) value.forEach((v, i) => check(schema.items, v, `${at}[${i}]`, errors));
  if (isObject(value as Json) && isObject(schema.properties)) {
    const props = schema.properties;
    const obj = value as JsonObject;
    for (const r of (schema.required as string[] | undefined) ?? []) if (!(r in obj)) errors.push(`${at}: missing required ${r}`);
    for (const [k, v] of Object.entries(obj)) {
      if (!(k in props)) errors.push(`${at}: undocumented property ${k}`);
      else check(props[k], v, `${at}.${k}`, errors);
    }
  }
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The answer matches the documented response of `method template` for its status: schema, headers, and error message. */
function expectDocumented(method: string, template: string, a: Answer, opts: { contentType?: string } = {}): void {
  const op = documented(method, template);
  expect(op, `${method} ${template} is documented`).to.not.equal(undefined);
  const responses = op!.responses as JsonObject;
  expect(responses, `${method} ${template} documents status ${a.status}`).to.have.property(String(a.status));
  const res = deref(responses[String(a.status)]);
  for (const [h, node] of Object.entries((res.headers as JsonObject | undefined) ?? {})) {
    if (deref(node).required === false) continue; // documented as present only on some answers
    expect(a.headers.has(h), `${method} ${template} ${a.status}: header ${h}`).to.equal(true);
  }
  const media = (res.content as JsonObject | undefined)?.[opts.contentType ?? 'application/json'];
  expect(media, `${method} ${template} ${a.status}: documented body`).to.not.equal(undefined);
  const m = deref(media);
  const errors: string[] = [];
  check(m.schema, a.body, `${method} ${template} ${a.status}`, errors);
  expect(errors, `${errors.join('; ')} in ${JSON.stringify(a.body).slice(0, 300)}`).to.deep.equal([]);
  if (a.status >= 400 && isObject(a.body as Json) && isObject(m.examples)) {
    // Messages that name a format or a parameter are compared with those words masked.
    const mask = (t: unknown) => String(t).replace(/\b(webp|png|jpeg|color|format|shadow|plate|width)\b/g, '…');
    const messages = Object.values(m.examples).map((e) => mask((deref(e).value as JsonObject).message));
    const message = (a.body as JsonObject).message as string;
    // A catalog file's problems are listed after a fixed first line.
    const first = (t: string) => (t.startsWith('invalid catalog:\n') ? 'invalid catalog:' : t);
    const known = messages.map(first).includes(first(mask(message)));
    expect(known, `${method} ${template} ${a.status}: message "${message}" is among the documented ones`).to.equal(true);
  }
}

describe('docs/openapi.json', () => {
  it('is OpenAPI 3.1 with both security schemes', () => {
    expect(doc.openapi).to.match(/^3\.1\.\d+$/);
    expect(doc.info).to.have.property('version');
    const schemes = (doc.components as JsonObject).securitySchemes as JsonObject;
    expect(schemes.ApiKey).to.deep.include({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(schemes.AdminBearer).to.deep.include({ type: 'http', scheme: 'bearer' });
  });

  it('documents every endpoint of the spec table, the admin table and the operational routes', () => {
    for (const [method, p] of [...SPEC_ENDPOINTS, ...EXTRA_V1_ENDPOINTS, ...ADMIN_ENDPOINTS, ...OTHER_ENDPOINTS]) {
      expect(documented(method, p), `${method} ${p}`).to.not.equal(undefined);
    }
    for (const [method, p] of [...SPEC_ENDPOINTS, ...EXTRA_V1_ENDPOINTS].filter(([, p]) => p !== '/v1')) {
      expect(documented(method, p)!.security, `${method} ${p} needs x-api-key`).to.deep.equal([{ ApiKey: [] }]);
    }
    expect(documented('GET', '/v1')!.security).to.deep.equal([]);
    for (const [method, p] of ADMIN_ENDPOINTS) {
      expect(documented(method, p)!.security, `${method} ${p} needs the admin bearer`).to.deep.equal([{ AdminBearer: [] }]);
    }
  });

  it('has a contact, and a description on every operation and every response', () => {
    const contact = (doc.info as JsonObject).contact as JsonObject;
    expect(contact.name).to.be.a('string');
    expect(contact.email).to.match(/^[^@\s]+@[^@\s]+$/);
    for (const [p, item] of Object.entries(doc.paths as JsonObject)) {
      for (const [m, op] of Object.entries(item as JsonObject)) {
        const o = op as JsonObject;
        expect(o.description, `${m} ${p} description`).to.be.a('string').with.length.greaterThan(20);
        for (const [status, r] of Object.entries(o.responses as JsonObject)) expect(deref(r).description, `${m} ${p} ${status}`).to.be.a('string');
      }
    }
  });

  it('documents X-Request-Id on every answer, Vary on every /v1 answer, and the CORS headers of /images', () => {
    for (const [p, item] of Object.entries(doc.paths as JsonObject)) {
      for (const [m, op] of Object.entries(item as JsonObject)) {
        for (const [status, r] of Object.entries((op as JsonObject).responses as JsonObject)) {
          const headers = (deref(r).headers as JsonObject | undefined) ?? {};
          expect(headers, `${m} ${p} ${status}`).to.have.property('X-Request-Id');
          if (p.startsWith('/v1') && status !== '500') expect(headers, `${m} ${p} ${status}`).to.include.keys('Vary', 'Access-Control-Allow-Origin');
          if (p.startsWith('/images') && status !== '500') expect(headers, `${m} ${p} ${status}`).to.include.keys('Access-Control-Allow-Origin', 'Cross-Origin-Resource-Policy');
        }
      }
    }
  });

  it('types shadow as the boolean-like values the parser takes, and limit, clamped by the server, without a maximum a validator would enforce', async () => {
    const { parseShadow } = await import('../../shared/render-options.ts');
    const shadow = deref((doc.components as JsonObject).parameters as JsonObject).shadow as JsonObject;
    const alternatives = (shadow.schema as JsonObject).anyOf as JsonObject[];
    expect(alternatives.map((a) => a.type)).to.deep.equal(['boolean', 'string']);
    for (const v of alternatives[1]!.enum as string[]) expect(() => parseShadow(v), v).to.not.throw();
    for (const v of [String(true), String(false)]) expect(() => parseShadow(v)).to.not.throw(); // a boolean as the client sends it
    expect(() => parseShadow('yes')).to.throw();
    const limit = deref((doc.components as JsonObject).parameters as JsonObject).limit as JsonObject;
    // a larger limit is clamped to 100, not refused (like width): a schema maximum would make validating clients refuse it
    expect((limit.schema as JsonObject).maximum).to.equal(undefined);
    expect(String(limit.description)).to.match(/clamped to 100/);
  });

  it('documents every route the Express app registers, and nothing it does not', () => {
    const stub = {} as never;
    const app = buildApp({
      logger: createLogger('openapi-test', 'silent'),
      db: stub, authenticator: stub, limiter: stub, admin: stub, signer: stub, assets: stub, renderer: null,
      adminToken: 'x'.repeat(32), publicBaseUrl: () => '', renderTimeoutMs: 1000, version: '0.0.0', ready: async () => true,
      // with the dashboard, so its admin call (sign-in links) is registered; its own /dashboard API is the
      // pages' private contract, documented in docs/dashboard.md rather than here
      dashboard: { sessions: stub, signInLinks: stub, distDir: null, sessionMaxSeconds: 60, signInThrottle: { perAddress: 1, perEmail: 1, windowSeconds: 60 } },
      webhooks: stub, // so the admin API's webhook calls are registered
      bodyLimits: { small: { limitBytes: 8192, maxRatio: 50, timeoutMs: 1000 }, large: { limitBytes: 8192, maxRatio: 50, timeoutMs: 1000 } },
      metrics: createHttpMetrics({ renderTimeoutMs: 1000 }),
      downloadGuard: stub, imageCacheMaxAgeSeconds: 60, adminAuthFailuresPerMinute: 20, corsAllowedOrigins: [], contractOrigins: stub,
      usageRecorder: stub, catalogRepo: stub, catalog: stub, geometry: stub,
    } satisfies AppDeps);
    interface Layer { rawPath?: unknown; route?: { path: string | string[]; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } }
    const found: Array<[string, string]> = [];
    const walk = (stack: Layer[], prefix: string) => {
      for (const layer of stack) {
        if (layer.route) {
          for (const p of ([] as string[]).concat(layer.route.path)) {
            for (const m of Object.keys(layer.route.methods).filter((x) => x !== '_all')) found.push([m.toUpperCase(), prefix + p]);
          }
        } else if (layer.handle?.stack) {
          const raw = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
          walk(layer.handle.stack, prefix + raw);
        }
      }
    };
    walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
    const dashboardApi = found.filter(([, p]) => p.startsWith('/dashboard'));
    expect(dashboardApi.length, 'the dashboard was mounted').to.be.greaterThan(0);
    found.splice(0, found.length, ...found.filter(([, p]) => !p.startsWith('/dashboard')));
    expect(found.length).to.be.greaterThan(25);
    for (const [method, p] of found) expect(documented(method, p), `registered route ${method} ${p}`).to.not.equal(undefined);
    const registered = new Set(found.map(([m, p]) => `${m} ${shape(p)}`));
    for (const [p, item] of Object.entries(doc.paths as JsonObject)) {
      for (const m of Object.keys(item as JsonObject).filter((k) => ['get', 'put', 'post', 'patch', 'delete'].includes(k))) {
        expect(registered.has(`${m.toUpperCase()} ${shape(p)}`), `documented ${m} ${p} is served`).to.equal(true);
      }
    }
  });

  it('resolves every $ref, declares every path parameter, and has unique operationIds', () => {
    const refs: string[] = [];
    const visit = (n: Json) => {
      if (Array.isArray(n)) n.forEach(visit);
      else if (isObject(n)) for (const [k, v] of Object.entries(n)) k === '$ref' && typeof v === 'string' ? refs.push(v) : visit(v);
    };
    visit(doc);
    expect(refs.length).to.be.greaterThan(50);
    for (const r of refs) expect(pointer(r), r).to.not.equal(undefined);

    const ids = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths as JsonObject)) {
      const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [m, op] of Object.entries(item as JsonObject)) {
        const o = op as JsonObject;
        expect(ids.has(o.operationId as string), `duplicate operationId ${String(o.operationId)}`).to.equal(false);
        ids.add(o.operationId as string);
        const declared = ((o.parameters as Json[] | undefined) ?? []).map(deref).filter((x) => x.in === 'path');
        expect(declared.map((x) => x.name).sort(), `${m} ${p} path parameters`).to.deep.equal([...names].sort());
        for (const x of declared) expect(x.required, `${m} ${p} {${String(x.name)}} required`).to.equal(true);
      }
    }
  });

  describe('real answers of a gateway on embedded PGlite', function () {
    this.timeout(120_000);
    let gw: GatewayHandle;
    let dataDir: string;
    let key: string;
    const admin = (method: string, p: string, body?: unknown): Promise<Answer> =>
      call(p, {
        method,
        headers: { authorization: `Bearer ${gw.adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    const v1 = (p: string, k: string | null = key) => call(p, { headers: k ? { 'x-api-key': k } : {} });
    // The sample catalog's vehicles, from searches for its years (a year is matched whole).
    const sampleVehicles = async (): Promise<JsonObject[]> => {
      const out: JsonObject[] = [];
      for (const y of ['2025', '2024', '2022']) out.push(...(((await v1(`/v1/search?q=${y}&limit=100`)).body as JsonObject).results as JsonObject[]));
      return out;
    };
    async function call(p: string, init: RequestInit = {}): Promise<Answer> {
      const r = await fetch(gw.url + p, init);
      const text = await r.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: r.status, headers: r.headers, body };
    }

    before(async () => {
      // Our own catalog (docs/sample-catalog.json) and organisation, whatever demo catalog the checkout holds.
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-openapi-'));
      gw = await startGateway({
        // every admin operation is also called without the token below: more failures than the default per-address limit
        config: loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'false', LOG_LEVEL: 'silent', ADMIN_AUTH_FAILURES_PER_MINUTE: '200' }),
        logger: createLogger('openapi-test', 'silent'),
      });
      const sample = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'sample-catalog.json'), 'utf8')) as unknown;
      const imported = await admin('POST', '/admin/v1/catalog/import', sample);
      expect(imported.status, JSON.stringify(imported.body)).to.equal(200);
      expectDocumented('POST', '/admin/v1/catalog/import', imported);
      const org = await admin('POST', '/admin/v1/organizations', { name: 'OpenAPI demo' });
      const cats = ((await admin('GET', '/admin/v1/categories')).body as JsonObject).categories as JsonObject[];
      const contract = await admin('PUT', `/admin/v1/organizations/${String((org.body as JsonObject).id)}/contract`, {
        categories: cats.map((c) => c.slug), allowed_formats: ['webp', 'png', 'jpeg'], rpm_limit: 10_000, monthly_quota: 1_000_000, active: true,
      });
      expect(contract.status).to.equal(200);
      key = ((await admin('POST', `/admin/v1/organizations/${String((org.body as JsonObject).id)}/keys`, {})).body as JsonObject).key as string;
    });
    after(async () => {
      await gw?.close();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('every operation documents what a malformed query and a missing credential answer (real requests, every path and method)', async () => {
      for (const [template, item] of Object.entries(doc.paths as JsonObject)) {
        for (const method of Object.keys(item as JsonObject)) {
          if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
          const M = method.toUpperCase();
          const concrete = template.replace('{token}.{ext}', 'abc.webp').replace(/\{[^}]+\}/g, 'x1');
          const headers: Record<string, string> = template.startsWith('/admin/') ? { authorization: `Bearer ${gw.adminToken}` } : template.startsWith('/v1/') ? { 'x-api-key': key } : {};
          const malformed = await call(`${concrete}?x=%zz`, { method: M, headers });
          if (M === 'HEAD') expect(documented(M, template)!.responses as JsonObject, `${M} ${template}`).to.have.property(String(malformed.status));
          else expectDocumented(M, template, malformed);
          if (template.startsWith('/admin/') || template.startsWith('/v1/')) {
            const bare = await call(concrete, { method: M });
            expectDocumented(M, template, bare);
            expect(bare.status, `${M} ${template} without a credential`).to.equal(401);
          }
        }
      }
    });

    it('root, health, reference, /v1/me', async () => {
      expectDocumented('GET', '/v1', await v1('/v1', null));
      expectDocumented('GET', '/healthz', await call('/healthz'));
      expectDocumented('GET', '/readyz', await call('/readyz'));
      expectDocumented('GET', '/v1/me', await v1('/v1/me'));
      expectDocumented('GET', '/v1/colors', await v1('/v1/colors'));
      expectDocumented('GET', '/v1/views', await v1('/v1/views'));
      const served = await call('/docs/openapi.json');
      expect(served.status).to.equal(200);
      expect(served.body).to.deep.equal(doc);
    });

    it('the catalog walk down to a signed image, and search', async () => {
      const makes = await v1('/v1/makes');
      expectDocumented('GET', '/v1/makes', makes);
      const make = ((makes.body as JsonObject).makes as JsonObject[])[0]!.slug as string;
      expectDocumented('GET', '/v1/makes/{make}', await v1(`/v1/makes/${make}`));
      const models = await v1(`/v1/makes/${make}/models`);
      expectDocumented('GET', '/v1/makes/{make}/models', models);
      const model = ((models.body as JsonObject).models as JsonObject[])[0]!.slug as string;
      const years = await v1(`/v1/makes/${make}/models/${model}`);
      expectDocumented('GET', '/v1/makes/{make}/models/{model}', years);

      // Walk every visible year of every model of every make, to meet both year answers and both image paths.
      const seen = { single: false, several: false, variantImage: false };
      for (const mk of (makes.body as JsonObject).makes as JsonObject[]) {
        const ms = (await v1(`/v1/makes/${String(mk.slug)}/models`)).body as JsonObject;
        for (const md of ms.models as JsonObject[]) {
          for (const year of md.years as number[]) {
            const base = `/v1/makes/${String(mk.slug)}/models/${String(md.slug)}/${year}`;
            const y = await v1(base);
            expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}', y);
            const body = y.body as JsonObject;
            if ('variants' in body) {
              seen.several = true;
              const variant = (body.variants as JsonObject[])[0]!.slug as string;
              const vv = await v1(`${base}/${variant}`);
              expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{variant}', vv);
              const view = ((vv.body as JsonObject).views as string[])[0]!;
              const img = await v1(`${base}/${variant}/${view}?color=blue&plate=ab-12&format=webp&width=5000`);
              expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{variant}/{view}', img);
              expect(((img.body as JsonObject).options as JsonObject).width).to.equal(2400);
              seen.variantImage = true;
            } else {
              seen.single = true;
              for (const view of body.views as string[]) {
                const img = await v1(`${base}/${view}?color=%23abc&shadow=1&plate=AB%20123`);
                expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{view}', img);
                const b = img.body as JsonObject;
                expect(b.view).to.equal(view);
                expect((b.options as JsonObject).color_name).to.equal(null);
                expect(new URL(b.image_url as string).pathname).to.match(/^\/images\/[\w-]+\.[\w-]+\.[\w-]+\.webp$/);
              }
            }
          }
        }
      }
      expect(seen, 'the sample catalog exercises every shape').to.deep.equal({ single: true, several: true, variantImage: true });

      const q = ((models.body as JsonObject).models as JsonObject[])[0]!.name as string;
      const found = await v1(`/v1/search?q=${encodeURIComponent(q.toUpperCase())}&limit=2`);
      expectDocumented('GET', '/v1/search', found);
      const results = (found.body as JsonObject).results as JsonObject[];
      expect(results.length).to.be.within(1, 2);
    });

    it('errors: 400, 401, 403, 404 and 429 with the documented bodies, messages and headers', async () => {
      expectDocumented('GET', '/v1/makes', await v1('/v1/makes', null));
      expectDocumented('GET', '/v1/makes', await v1('/v1/makes', 'svc_live_notarealkey'));
      expectDocumented('GET', '/v1/search', await v1('/v1/search'));
      expectDocumented('GET', '/v1/search', await v1('/v1/search?q=a&limit=0'));
      expectDocumented('GET', '/v1/makes/{make}', await v1('/v1/makes/no-such-make'));
      for (const bad of ['color=nope', 'format=gif', 'shadow=yes', 'plate=%24%24', 'plate=ABCDEFGHIJKLM', 'width=12.5', 'color=red&color=blue']) {
        const a = await v1(`/v1/makes/x/models/y/2020/front?${bad}`);
        expect(a.status, bad).to.equal(400);
        expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{view}', a);
      }
      const nf = await v1('/v1/makes/no-such-make/models/y/2020/front');
      expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{view}', nf);

      // An organisation of our own with a narrow contract: format 403, category 403, then 429.
      const cats = await admin('GET', '/admin/v1/categories');
      expectDocumented('GET', '/admin/v1/categories', cats);
      const org = await admin('POST', '/admin/v1/organizations', { name: 'OpenAPI test' });
      expectDocumented('POST', '/admin/v1/organizations', org);
      const orgId = (org.body as JsonObject).id as string;
      // One vehicle of each of two categories, from the search results of the all-categories key.
      const all = await sampleVehicles();
      const byCategory = new Map<string, JsonObject>();
      for (const r of all) if (!byCategory.has(r.category as string)) byCategory.set(r.category as string, r);
      expect(byCategory.size, 'the sample catalog has several categories').to.be.greaterThan(1);
      const [[inName, inside], [, outside]] = [...byCategory.entries()] as [[string, JsonObject], [string, JsonObject]];
      const inSlug = ((cats.body as JsonObject).categories as JsonObject[]).find((c) => c.name === inName)!.slug as string;
      const contract = await admin('PUT', `/admin/v1/organizations/${orgId}/contract`, {
        categories: [inSlug], allowed_formats: ['webp'], rpm_limit: 4, monthly_quota: 1000, active: true,
      });
      expectDocumented('PUT', '/admin/v1/organizations/{org}/contract', contract);
      const created = await admin('POST', `/admin/v1/organizations/${orgId}/keys`, { name: 'openapi' });
      expectDocumented('POST', '/admin/v1/organizations/{org}/keys', created);
      const k2 = (created.body as JsonObject).key as string;
      const imagePath = (r: JsonObject) =>
        `/v1/makes/${String(r.makeSlug)}/models/${String(r.modelSlug)}/${String(r.year)}/${r.variantSlug ? `${String(r.variantSlug)}/` : ''}front`;
      const fmt = await v1(`${imagePath(inside)}?format=png`, k2);
      expect(fmt.body).to.deep.equal({ error: 'forbidden', message: 'Format png is not included in this contract' });
      expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{variant}/{view}', fmt);
      const cat = await v1(imagePath(outside), k2);
      expect(cat.body).to.deep.equal({ error: 'forbidden', message: 'Contract does not include this vehicle category' });
      expectDocumented('GET', '/v1/makes/{make}/models/{model}/{year}/{variant}/{view}', cat);
      expectDocumented('GET', '/v1/me', await v1('/v1/me', k2));
      expectDocumented('GET', '/v1/makes', await v1('/v1/makes', k2));
      const limited = await v1('/v1/makes', k2);
      expect(limited.status).to.equal(429);
      expectDocumented('GET', '/v1/makes', limited);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);

      // Banned member and inactive contract: the spec's 403 messages, documented on every /v1 call.
      const member = await admin('POST', `/admin/v1/organizations/${orgId}/members`, { email: 'openapi@example.com' });
      expectDocumented('POST', '/admin/v1/organizations/{org}/members', member);
      const memberId = (member.body as JsonObject).id as string;
      expectDocumented('POST', '/admin/v1/members/{id}/ban', await admin('POST', `/admin/v1/members/${memberId}/ban`));
      const banned = await v1('/v1/colors', k2);
      expect(banned.body).to.deep.equal({ error: 'forbidden', message: 'Organization access is disabled' });
      expectDocumented('GET', '/v1/colors', banned);
      expectDocumented('POST', '/admin/v1/members/{id}/unban', await admin('POST', `/admin/v1/members/${memberId}/unban`));
      await admin('PUT', `/admin/v1/organizations/${orgId}/contract`, {
        categories: [inSlug], allowed_formats: ['webp'], rpm_limit: 4, monthly_quota: 1000, active: false,
      });
      const inactive = await v1('/v1/views', k2);
      expect(inactive.body).to.deep.equal({ error: 'forbidden', message: 'No active contract for this key' });
      expectDocumented('GET', '/v1/views', inactive);

      expectDocumented('GET', '/admin/v1/organizations/{org}/usage', await admin('GET', `/admin/v1/organizations/${orgId}/usage`));
      expectDocumented('GET', '/admin/v1/organizations/{org}', await admin('GET', `/admin/v1/organizations/${orgId}`));
      expectDocumented('GET', '/admin/v1/organizations', await admin('GET', '/admin/v1/organizations'));
      expectDocumented('POST', '/admin/v1/keys/{id}/revoke', await admin('POST', `/admin/v1/keys/${String((created.body as JsonObject).id)}/revoke`));
      expectDocumented('POST', '/admin/v1/keys/{id}/revoke', await admin('POST', '/admin/v1/keys/key_nope/revoke'));
      expectDocumented('GET', '/admin/v1/categories', await call('/admin/v1/categories'));
    });

    it('admin catalog export and import of the docs samples', async () => {
      const exported = await admin('GET', '/admin/v1/catalog/export');
      expectDocumented('GET', '/admin/v1/catalog/export', exported);
      const sampleJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'sample-catalog.json'), 'utf8')) as unknown;
      const errors: string[] = [];
      check({ $ref: '#/components/schemas/CatalogFile' }, sampleJson, 'docs/sample-catalog.json', errors);
      expect(errors).to.deep.equal([]);
      const j = await admin('POST', '/admin/v1/catalog/import', sampleJson);
      expectDocumented('POST', '/admin/v1/catalog/import', j);
      const csv = await call('/admin/v1/catalog/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'text/csv' },
        body: fs.readFileSync(path.join(ROOT, 'docs', 'sample-catalog.csv'), 'utf8'),
      });
      expectDocumented('POST', '/admin/v1/catalog/import', csv);
      expect(csv.status).to.equal(200);
      const bad = await admin('POST', '/admin/v1/catalog/import', { format: 'vehicle-catalog/v1', categories: [], makes: [{ slug: 'Bad Slug', name: 'x', models: [] }] });
      expect(bad.status).to.equal(400);
      expectDocumented('POST', '/admin/v1/catalog/import', bad);
    });

    it('the batch call, the usage report, malformed paths, route-level 403s and CORS answers', async () => {
      const makes = (await v1('/v1/makes')).body as JsonObject;
      const make = (makes.makes as JsonObject[])[0]!.slug as string;
      const model = (((await v1(`/v1/makes/${make}/models`)).body as JsonObject).models as JsonObject[])[0]!;
      const year = await v1(`/v1/makes/${make}/models/${String(model.slug)}/${String((model.years as number[])[0])}`);
      const yb = year.body as JsonObject;
      const vehicleId = 'vehicle' in yb ? ((yb.vehicle as JsonObject).id as string) : (((yb.variants as JsonObject[])[0]!.vehicle_id) as string);
      const T = '/v1/vehicles/{vehicle_id}/images';
      const all = await v1(`/v1/vehicles/${vehicleId}/images?color=red&plate=AB%2012&width=9000`);
      expect(all.status).to.equal(200);
      expectDocumented('GET', T, all);
      const two = await v1(`/v1/vehicles/${vehicleId}/images?views=front,front_left&shadow=false&background=studio`);
      expectDocumented('GET', T, two);
      expect(((two.body as JsonObject).images as JsonObject[]).map((i) => i.view)).to.deep.equal(['front', 'front_left']);
      for (const bad of ['views=wheel', 'views=', 'views=front&views=rear', 'color=nope', 'shadow=yes', 'format=jpeg&background=transparent']) {
        const a = await v1(`/v1/vehicles/${vehicleId}/images?${bad}`);
        expect(a.status, bad).to.equal(400);
        expectDocumented('GET', T, a);
      }
      expectDocumented('GET', T, await v1('/v1/vehicles/veh_nothing/images'));
      expectDocumented('GET', T, await v1('/v1/vehicles/%ZZ/images'));

      // the spin call's refusals (this gateway has no renderer: a spin it cannot look up is 503)
      const SP = '/v1/vehicles/{vehicle_id}/spin';
      const noSpin = await v1(`/v1/vehicles/${vehicleId}/spin`);
      expect(noSpin.body).to.deep.equal({ error: 'forbidden', message: 'Spin is not included in this contract' });
      expectDocumented('GET', SP, noSpin);
      for (const bad of ['frames=7', 'frames=8&frames=12', 'width=1.5', 'color=nope', 'framing=zoom', 'aspect=5:4']) {
        const a = await v1(`/v1/vehicles/${vehicleId}/spin?${bad}`);
        expect(a.status, bad).to.equal(400);
        expectDocumented('GET', SP, a);
      }
      const spinOrg = ((await admin('POST', '/admin/v1/organizations', { name: 'OpenAPI spin' })).body as JsonObject).id as string;
      const spinContract = await admin('PUT', `/admin/v1/organizations/${spinOrg}/contract`, {
        categories: (((await admin('GET', '/admin/v1/categories')).body as JsonObject).categories as JsonObject[]).map((c) => c.slug as string),
        allowed_formats: ['webp'], rpm_limit: 100, monthly_quota: 1000, active: true, features: ['spin'],
      });
      expectDocumented('PUT', '/admin/v1/organizations/{org}/contract', spinContract);
      expectDocumented('PUT', '/admin/v1/organizations/{org}/contract', await admin('PUT', `/admin/v1/organizations/${spinOrg}/contract`, {
        categories: [], allowed_formats: ['webp'], rpm_limit: 100, monthly_quota: 1000, active: true, features: ['turbo'],
      }));
      const spinKey = ((await admin('POST', `/admin/v1/organizations/${spinOrg}/keys`, {})).body as JsonObject).key as string;
      expectDocumented('GET', '/v1/me', await v1('/v1/me', spinKey));
      expectDocumented('GET', SP, await v1('/v1/vehicles/veh_nothing/spin', spinKey));
      expectDocumented('GET', SP, await v1(`/v1/vehicles/${vehicleId}/spin?format=png`, spinKey));
      const unavailable = await v1(`/v1/vehicles/${vehicleId}/spin`, spinKey);
      expect(unavailable.status).to.equal(503);
      expectDocumented('GET', SP, unavailable);

      const U = '/v1/usage';
      const usage = await v1(U);
      expectDocumented('GET', U, usage);
      expect((usage.body as JsonObject).requests).to.be.greaterThan(0);
      expectDocumented('GET', U, await v1(`${U}?month=2026-13`));
      expectDocumented('GET', U, await v1(U, null));

      // a malformed percent-encoding in a path segment: 400 on every /v1 path with parameters, and on /images
      for (const [t, p] of [['/v1/makes/{make}', '/v1/makes/%ZZ'], ['/v1/makes/{make}/models', '/v1/makes/%ZZ/models'],
        ['/v1/makes/{make}/models/{model}', '/v1/makes/x/models/%ZZ'], ['/v1/makes/{make}/models/{model}/{year}', '/v1/makes/x/models/y/%ZZ'],
        ['/v1/makes/{make}/models/{model}/{year}/{view}', '/v1/makes/x/models/y/2020/%ZZ'], ['/images/{token}.{ext}', '/images/%ZZ.png']] as const) {
        const a = await v1(p);
        expect(a.status, p).to.equal(400);
        expect(a.body).to.deep.equal({ error: 'bad_request', message: 'The request is malformed' });
        expectDocumented('GET', t, a);
      }

      // a route-level 403 is counted and carries the rate-limit headers; the gate's 403 does not
      const orgId = ((await admin('POST', '/admin/v1/organizations', { name: 'OpenAPI 403' })).body as JsonObject).id as string;
      const contract = await admin('PUT', `/admin/v1/organizations/${orgId}/contract`, {
        categories: ['passenger-car'], allowed_formats: ['webp'], rpm_limit: 100, monthly_quota: 1000, active: true, allowed_origins: ['https://app.example.com'],
      });
      expectDocumented('PUT', '/admin/v1/organizations/{org}/contract', contract);
      expect((contract.body as JsonObject).allowed_origins).to.deep.equal(['https://app.example.com']);
      const k = ((await admin('POST', `/admin/v1/organizations/${orgId}/keys`, {})).body as JsonObject).key as string;
      const format403 = await call(`/v1/vehicles/${vehicleId}/images?format=png`, { headers: { 'x-api-key': k, origin: 'https://app.example.com' } });
      expect(format403.status).to.equal(403);
      expectDocumented('GET', T, format403);
      expect(format403.headers.get('ratelimit')).to.match(/"minute";r=\d+/);
      expect(format403.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(format403.headers.get('vary')).to.match(/Origin/);
      const noKeyImage = await call('/images/%ZZ.png', { headers: { origin: 'https://elsewhere.example' } });
      expect(noKeyImage.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('image download: 503 without a renderer, 304 on a matching ETag, 401/400 on bad tokens', async () => {
      const found = await sampleVehicles();
      const r = found.find((x) => x.variantSlug === null) ?? found[0]!;
      const img = await v1(`/v1/makes/${String(r.makeSlug)}/models/${String(r.modelSlug)}/${String(r.year)}/${r.variantSlug ? `${String(r.variantSlug)}/` : ''}front?format=png`);
      expect(img.status).to.equal(200);
      const url = new URL((img.body as JsonObject).image_url as string);
      const file = url.pathname;
      const unavailable = await call(file);
      expect(unavailable.status).to.equal(503);
      expectDocumented('GET', '/images/{token}.{ext}', unavailable);
      const token = file.slice('/images/'.length, -'.png'.length);
      const { imageEtag } = await import('../../gateway/http/routes/images.ts');
      const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      const etag = imageEtag({
        set: payload.s as string, revision: payload.r as string, view: payload.v as 'front', color: `#${String(payload.c)}`,
        shadow: payload.sh === 1, plate: (payload.p as string | undefined) ?? null, format: payload.f as 'png', width: payload.w as number,
        background: payload.bg === 't' ? 'transparent' : 'studio', vehicle: payload.veh as string,
      });
      const notModified = await call(file, { headers: { 'if-none-match': etag } });
      expect(notModified.status).to.equal(304);
      const documented304 = deref((documented('GET', '/images/{token}.{ext}')!.responses as JsonObject)['304']);
      for (const h of Object.keys(documented304.headers as JsonObject)) expect(notModified.headers.has(h), h).to.equal(true);
      expect(notModified.headers.get('cache-control')).to.match(/^public, max-age=\d+, immutable$/);
      expectDocumented('GET', '/images/{token}.{ext}', await call(file.replace(/\.png$/, '.webp')));
      const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
      expectDocumented('GET', '/images/{token}.{ext}', await call(`/images/${tampered}.png`));
      expectDocumented('GET', '/images/{token}.{ext}', await call('/images/not-a-token.png'));
      const expiresAt = Date.parse((img.body as JsonObject).expires_at as string);
      const lifetime = (expiresAt - Date.now()) / 1000;
      expect(lifetime, 'default lifetime: 86400 s rounded up to a multiple of 8640 s').to.be.within(86_400 - 5, 86_400 + 8_640);
      expect((expiresAt / 1000) % 8640).to.equal(0);
      expect(payload.exp).to.equal(expiresAt / 1000);
    });
  });
});
