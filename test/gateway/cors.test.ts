/**
 * CORS (gateway/http/cors.ts): `/images/*` open to every origin, `/v1` to CORS_ALLOWED_ORIGINS and
 * each contract's allowed_origins; preflights answered before authentication and never billed.
 * HTTP-level checks on a real gateway, then a real Chromium page on another origin that calls /v1
 * with its key, and fetch()es a rendered picture and reads its pixels from a canvas.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { backendLabel } from './support/backend.ts';
import { request, startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const WIDE = 'https://everyone.example'; // CORS_ALLOWED_ORIGINS
const APP_A = 'https://app-a.example'; // org A's contract
const OTHER = 'https://evil.example';
const SINGLE = '/v1/makes/aurelia/models/vento/2023';

describe(`CORS (${backendLabel()})`, function () {
  this.timeout(90_000);
  let gw: TestGateway;
  let a: { org: string; key: string; keyId: string };
  let b: { org: string; key: string; keyId: string };
  const preflight = (path: string, origin: string, extra: Record<string, string> = {}) =>
    request(gw.url + path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key', ...extra } });

  before(async () => {
    gw = await startTestGateway({ env: { CORS_ALLOWED_ORIGINS: `${WIDE}, http://localhost:3000` } });
    a = await gw.admin.customer();
    await gw.admin.call('PUT', `/organizations/${a.org}/contract`, {
      categories: ['passenger-car'], allowed_formats: ['webp', 'png'], rpm_limit: 1000, monthly_quota: 100_000, active: true, allowed_origins: [APP_A],
    });
    b = await gw.admin.customer();
  });
  after(async () => {
    await gw?.close();
  });

  describe('configuration and the admin contract', () => {
    it('CORS_ALLOWED_ORIGINS takes origins only', () => {
      expect(loadGatewayConfig({ CORS_ALLOWED_ORIGINS: 'https://A.example:8443/, http://b.example' }).corsAllowedOrigins).to.deep.equal([
        'https://a.example:8443',
        'http://b.example',
      ]);
      for (const bad of ['*', 'https://a.example/path', 'ftp://a.example', 'https://u:p@a.example', 'null', 'a.example']) {
        expect(() => loadGatewayConfig({ CORS_ALLOWED_ORIGINS: bad }), bad).to.throw(/CORS_ALLOWED_ORIGINS/);
      }
    });

    it('PUT contract: allowed_origins is optional (absent keeps the list), validated, and answered', async () => {
      const got = await gw.admin.call('GET', `/organizations/${a.org}/contract`);
      expect(got.body.allowed_origins).to.deep.equal([APP_A]);
      // DESIGN.md's body, without the field: the list stays
      const kept = await gw.admin.putContract(a.org, { categories: ['passenger-car'], allowed_formats: ['webp', 'png'] });
      expect(kept.allowed_origins).to.deep.equal([APP_A]);
      const bad = await gw.admin.call('PUT', `/organizations/${a.org}/contract`, {
        categories: ['passenger-car'], allowed_formats: ['webp'], rpm_limit: 10, monthly_quota: 10, active: true, allowed_origins: ['https://x.example/app'],
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.equal('bad_request');
      expect(bad.body.message).to.match(/^Invalid allowed_origins\.0: not an origin/);
      expect((await gw.admin.call('GET', `/organizations/${a.org}/contract`)).body.allowed_origins).to.deep.equal([APP_A]);
      // a new contract without the field has none
      expect((await gw.admin.call('GET', `/organizations/${b.org}/contract`)).body.allowed_origins).to.deep.equal([]);
    });
  });

  describe('/v1', () => {
    it('a preflight from an allowed origin is 204 with the CORS answer, before authentication, and not billed', async () => {
      const before = (await gw.admin.usage(a.org)).requests;
      for (const origin of [WIDE, APP_A, 'http://localhost:3000']) {
        const r = await preflight('/v1/makes', origin);
        expect(r.status, origin).to.equal(204);
        expect(r.headers.get('access-control-allow-origin')).to.equal(origin);
        expect(r.headers.get('access-control-allow-methods')).to.equal('GET,HEAD');
        expect(r.headers.get('access-control-allow-headers')!.toLowerCase().split(',')).to.include.members(['x-api-key', 'content-type']);
        expect(r.headers.get('access-control-max-age')).to.equal('600');
        expect(r.headers.get('access-control-allow-credentials')).to.equal(null);
        expect(r.headers.get('vary')).to.match(/Origin/);
        expect(r.headers.get('x-request-id')).to.be.a('string');
      }
      // also for a path that needs the batch's id and for unknown paths: no key is ever asked for
      expect((await preflight('/v1/vehicles/veh_x/images', APP_A)).status).to.equal(204);
      expect((await preflight('/v1/nowhere', APP_A)).status).to.equal(204);
      expect((await gw.admin.usage(a.org)).requests).to.equal(before);
    });

    it('a preflight from an origin nobody lists is 403 without CORS headers', async () => {
      const r = await preflight('/v1/makes', OTHER);
      expect(r.status).to.equal(403);
      expect(r.body).to.deep.equal({ error: 'forbidden', message: 'This origin may not call the API from a browser' });
      expect(r.headers.get('access-control-allow-origin')).to.equal(null);
      expect(r.headers.get('vary')).to.match(/Origin/);
    });

    it('a plain OPTIONS (no Access-Control-Request-Method) is no preflight: 401 without a key, 204 with Allow with one', async () => {
      const r = await request(`${gw.url}/v1/makes`, { method: 'OPTIONS', headers: { origin: APP_A } });
      expect(r.status).to.equal(401);
      const r2 = await request(`${gw.url}/v1/makes`, { method: 'OPTIONS', headers: { 'x-api-key': a.key } });
      expect(r2.status).to.equal(204); // the documented answer to a plain OPTIONS: 204 with Allow, no body
      expect(r2.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
      expect(r2.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('an answer carries Access-Control-Allow-Origin only for the key\'s own origins or the gateway\'s, with Vary: Origin', async () => {
      const ok = await gw.getWithKey(a.key, '/v1/makes', { origin: APP_A });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('access-control-allow-origin')).to.equal(APP_A);
      expect(ok.headers.get('access-control-expose-headers')!.split(',')).to.include.members(['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id']);
      expect(ok.headers.get('vary')).to.match(/Origin/);
      // org B's key from org A's origin: the page may not read it
      const other = await gw.getWithKey(b.key, '/v1/makes', { origin: APP_A });
      expect(other.status).to.equal(200);
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      expect(other.headers.get('access-control-expose-headers')).to.equal(null);
      expect(other.headers.get('vary')).to.match(/Origin/);
      // the gateway-wide origin: every organisation
      expect((await gw.getWithKey(b.key, '/v1/makes', { origin: WIDE })).headers.get('access-control-allow-origin')).to.equal(WIDE);
      // nobody's origin; and no Origin at all (Vary still, since the answer depends on it)
      expect((await gw.getWithKey(a.key, '/v1/makes', { origin: OTHER })).headers.get('access-control-allow-origin')).to.equal(null);
      const none = await gw.getWithKey(a.key, '/v1/makes');
      expect(none.headers.get('access-control-allow-origin')).to.equal(null);
      expect(none.headers.get('vary')).to.match(/Origin/);
      // the root (no key) and the gate's refusals can be read by an allowed page too
      const root = await gw.get('/v1', { origin: APP_A });
      expect(root.headers.get('access-control-allow-origin')).to.equal(APP_A);
      const unauth = await gw.get('/v1/makes', { origin: WIDE });
      expect(unauth.status).to.equal(401);
      expect(unauth.headers.get('access-control-allow-origin')).to.equal(WIDE);
    });

    it('a 429 exposes Retry-After and RateLimit to an allowed page', async () => {
      const c = await gw.admin.customer({ rpm_limit: 1 });
      await gw.admin.call('PUT', `/organizations/${c.org}/contract`, {
        categories: ['passenger-car'], allowed_formats: ['webp'], rpm_limit: 1, monthly_quota: 1000, active: true, allowed_origins: ['https://c.example'],
      });
      expect((await gw.getWithKey(c.key, '/v1/colors', { origin: 'https://c.example' })).status).to.equal(200);
      const limited = await gw.getWithKey(c.key, '/v1/colors', { origin: 'https://c.example' });
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('access-control-allow-origin')).to.equal('https://c.example');
      expect(limited.headers.get('access-control-expose-headers')).to.match(/Retry-After/);
    });

    it('a contract change takes effect at once: a removed origin is refused, an inactive contract\'s origins too', async () => {
      const c = await gw.admin.customer();
      const put = (origins: string[] | undefined, active = true) =>
        gw.admin.call('PUT', `/organizations/${c.org}/contract`, {
          categories: ['passenger-car'], allowed_formats: ['webp'], rpm_limit: 100, monthly_quota: 1000, active, ...(origins ? { allowed_origins: origins } : {}),
        });
      expect((await preflight('/v1/makes', 'https://d.example')).status).to.equal(403);
      await put(['https://d.example']);
      expect((await preflight('/v1/makes', 'https://d.example')).status).to.equal(204);
      expect((await gw.getWithKey(c.key, '/v1/makes', { origin: 'https://d.example' })).headers.get('access-control-allow-origin')).to.equal('https://d.example');
      await put(undefined, false);
      expect((await preflight('/v1/makes', 'https://d.example')).status).to.equal(403);
      await put([]);
      expect((await preflight('/v1/makes', 'https://d.example')).status).to.equal(403);
    });
  });

  describe('/images', () => {
    it('every answer, refusals included, is readable by any page and usable cross-origin', async () => {
      for (const p of ['/images/not-a-token.png', '/images/a.b.c.png']) {
        const r = await request(gw.url + p, { headers: { origin: OTHER } });
        expect(r.status).to.be.within(400, 499);
        expect(r.headers.get('access-control-allow-origin')).to.equal('*');
        expect(r.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
      }
      const url = (await gw.getWithKey(a.key, `${SINGLE}/front?format=png`)).body.image_url as string;
      const noRenderer = await request(url.replace('http://localhost:', 'http://127.0.0.1:'));
      expect(noRenderer.status).to.equal(503);
      expect(noRenderer.headers.get('access-control-allow-origin')).to.equal('*');
      const pf = await request(gw.url + '/images/x.y.z.png', { method: 'OPTIONS', headers: { origin: OTHER, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' } });
      expect(pf.status).to.equal(204);
      expect(pf.headers.get('access-control-allow-origin')).to.equal('*');
      expect(pf.headers.get('access-control-allow-headers')).to.match(/If-None-Match/i);
    });
  });

  describe('in a real browser (Chromium) on another origin', () => {
    let browser: Browser;
    let page: http.Server;
    let pageOrigin: string;
    let withRenderer: TestGateway;
    let renderer: TestRenderer;

    before(async () => {
      page = http.createServer((_req, res) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end('<!doctype html><title>another site</title><canvas id="c"></canvas>');
      });
      await new Promise<void>((r) => page.listen(0, '127.0.0.1', () => r()));
      pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
      renderer = await startTestRenderer();
      withRenderer = await startTestGateway({ renderer: renderer.client });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await withRenderer?.close();
      await renderer?.close();
      await new Promise<void>((r) => (page ? page.close(() => r()) : r()));
    });

    it('calls /v1 with x-api-key after a preflight, reads the rate-limit headers, and draws a fetched picture on a canvas', async () => {
      const allowed = await withRenderer.admin.customer();
      await withRenderer.admin.call('PUT', `/organizations/${allowed.org}/contract`, {
        categories: ['passenger-car'], allowed_formats: ['webp', 'png'], rpm_limit: 1000, monthly_quota: 100_000, active: true, allowed_origins: [pageOrigin],
      });
      const refused = await withRenderer.admin.customer(); // a contract without the page's origin
      const tab = await browser.newPage();
      await tab.goto(pageOrigin + '/');
      const api = withRenderer.url.replace('127.0.0.1', 'localhost'); // another origin than the page
      // the page's own script (plain JavaScript: the project's TypeScript has no DOM library)
      const script = `(async ({ api, key, otherKey, path }) => {
        const r = await fetch(api + path + '/front?format=png&width=240&color=red', { headers: { 'x-api-key': key } });
        const body = await r.json();
        const rateLimit = r.headers.get('RateLimit');
        const requestId = r.headers.get('X-Request-Id');
        let otherError = '';
        try {
          await fetch(api + '/v1/makes', { headers: { 'x-api-key': otherKey } });
        } catch (e) {
          otherError = String(e);
        }
        const img = await fetch(body.image_url); // http://localhost:<port>/images/…: cross-origin too
        const bitmap = await createImageBitmap(await img.blob());
        const canvas = document.getElementById('c');
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(bitmap, 0, 0);
        const px = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data; // throws on a tainted canvas
        let sum = 0;
        for (let i = 0; i < px.length; i += 4) sum += px[i];
        return { status: r.status, rateLimit, requestId, otherError, imgStatus: img.status, width: bitmap.width, meanRed: sum / (px.length / 4) };
      })(${JSON.stringify({ api, key: allowed.key, otherKey: refused.key, path: SINGLE })})`;
      const result = (await tab.evaluate(script)) as {
        status: number; rateLimit: string | null; requestId: string | null; otherError: string; imgStatus: number; width: number; meanRed: number;
      };
      await tab.close();
      expect(result.status).to.equal(200);
      expect(result.rateLimit).to.match(/"minute";r=\d+/);
      expect(result.requestId).to.be.a('string');
      expect(result.otherError).to.match(/Failed to fetch/);
      expect(result.imgStatus).to.equal(200);
      expect(result.width).to.equal(240);
      expect(result.meanRed).to.be.greaterThan(10);
    });
  });
});
