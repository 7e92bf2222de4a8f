/**
 * Issue 14, part 3: an image URL ends with the access that granted it. The token names the
 * organisation and key; every download re-checks key, bans, contract, format, category and
 * publication through the /v1 authentication cache, and a change shows within seconds.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import jwt from 'jsonwebtoken';
import type { ImageRenderer } from '../../gateway/render/image-renderer.ts';
import { backendLabel } from './support/backend.ts';
import { request, startTestGateway, type Answer, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';
const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

/** Polls `url` until it answers `status` (or the time runs out); returns the last answer and how long it took. */
async function until(url: string, status: number, withinMs: number): Promise<{ a: Answer; ms: number }> {
  const t0 = Date.now();
  for (;;) {
    const a = await request(url);
    if (a.status === status || Date.now() - t0 > withinMs) return { a, ms: Date.now() - t0 };
    await new Promise((r) => setTimeout(r, 100));
  }
}

function expectError(a: Answer, status: number, code: string, message?: string | RegExp): void {
  expect(a.status, a.text).to.equal(status);
  expect(Object.keys(a.body).sort()).to.deep.equal(['error', 'message']);
  expect(a.body.error).to.equal(code);
  if (typeof message === 'string') expect(a.body.message).to.equal(message);
  else if (message) expect(a.body.message).to.match(message);
  expect(a.headers.get('cache-control')).to.equal('no-store');
}

describe(`security: image URLs end with their grant (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let second: TestGateway;
  let renderer: TestRenderer;
  let renders = 0;
  const counting: ImageRenderer = {
    render: (req, o) => {
      renders++;
      return renderer.client.render(req, o);
    },
  };

  before(async () => {
    renderer = await startTestRenderer({ env: { RENDER_WORKERS: '1' } });
    gw = await startTestGateway({ renderer: counting });
    // a second instance over the same database and secrets, with a short auth cache
    second = await startTestGateway({ renderer: counting, db: gw.db, dataDir: gw.dataDir, seedDemo: false, env: { AUTH_CACHE_TTL_MS: '1000' } });
  });
  after(async () => {
    await second?.close();
    await gw?.close();
    await renderer?.close();
  });

  const customerWithUrl = async (q = 'format=png&width=200&color=red', path = `${SINGLE}/front_left`) => {
    const c = await gw.admin.customer();
    const member = await gw.admin.addMember(c.org, `ops-${c.org}@example.com`);
    const a = await gw.getWithKey(c.key, `${path}?${q}`);
    expect(a.status, a.text).to.equal(200);
    const url = local(a.body.image_url as string);
    const first = await request(url);
    expect(first.status, first.text).to.equal(200);
    return { ...c, member: member.id, url, vehicle: a.body.vehicle.id as string };
  };

  describe('happy', () => {
    it('the token names the organisation and key (ids only), keeps the bg claim, and downloads', async () => {
      const c = await gw.admin.customer();
      const a = await gw.getWithKey(c.key, `${SINGLE}/side_left?format=png&width=200&background=transparent`);
      expect(a.status, a.text).to.equal(200);
      const token = (a.body.image_url as string).split('/images/')[1]!.replace(/\.png$/, '');
      const p = jwt.decode(token) as Record<string, unknown>;
      expect(p.o).to.equal(c.org);
      expect(p.k).to.equal(c.keyId);
      expect(p.bg).to.equal('t');
      expect(JSON.stringify(p)).not.to.contain(c.key);
      const d = await request(local(a.body.image_url as string));
      expect(d.status).to.equal(200);
    });

    it('a CDN may keep a picture at most IMAGE_CACHE_MAX_AGE_SECONDS (60 s), then revalidates with a cheap 304', async () => {
      const c = await customerWithUrl('format=png&width=200&color=blue');
      const res = await fetch(c.url);
      await res.arrayBuffer();
      const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control')!)![1]);
      expect(maxAge).to.be.within(1, 60);
      const before = renders;
      const again = await fetch(c.url, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).to.equal(304);
      expect(renders).to.equal(before);
    });

    it('HEAD of a picture already served is answered from its known ETag and size, without rendering', async () => {
      const c = await customerWithUrl('format=png&width=200&color=green');
      const get = await fetch(c.url);
      const size = (await get.arrayBuffer()).byteLength;
      const before = renders;
      const head = await fetch(c.url, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(Number(head.headers.get('content-length'))).to.equal(size);
      expect(head.headers.get('etag')).to.equal(get.headers.get('etag'));
      expect(renders).to.equal(before);
    });
  });

  describe('error', () => {
    it('a revoked key turns its earlier URL into 401 at once', async () => {
      const c = await customerWithUrl();
      await gw.admin.revokeKey(c.keyId);
      const { a, ms } = await until(c.url, 401, 3000);
      expectError(a, 401, 'unauthorized', 'The API key is unknown or revoked');
      expect(ms).to.be.below(1000);
    });

    it('a banned member turns every URL of the organisation into 403 "Organization access is disabled", and the unban back', async () => {
      const c = await customerWithUrl();
      await gw.admin.ban(c.member);
      const { a, ms } = await until(c.url, 403, 3000);
      expectError(a, 403, 'forbidden', 'Organization access is disabled');
      expect(ms).to.be.below(1000);
      await gw.admin.unban(c.member);
      expect((await until(c.url, 200, 3000)).a.status).to.equal(200);
    });

    it('a deactivated contract is 403 "No active contract for this key"', async () => {
      const c = await customerWithUrl();
      await gw.admin.putContract(c.org, { active: false });
      const { a, ms } = await until(c.url, 403, 3000);
      expectError(a, 403, 'forbidden', 'No active contract for this key');
      expect(ms).to.be.below(1000);
    });

    it('a format removed from the contract is 403 "Format png is not included in this contract"', async () => {
      const c = await customerWithUrl();
      await gw.admin.putContract(c.org, { allowed_formats: ['webp', 'jpeg'] });
      const { a, ms } = await until(c.url, 403, 3000);
      expectError(a, 403, 'forbidden', 'Format png is not included in this contract');
      expect(ms).to.be.below(1000);
    });

    it("the vehicle's category removed from the contract is 403 with the spec's message", async () => {
      const c = await customerWithUrl();
      await gw.admin.putContract(c.org, { categories: ['suv'] });
      const { a } = await until(c.url, 403, 3000);
      expectError(a, 403, 'forbidden', 'Contract does not include this vehicle category');
    });

    it('an unpublished view or vehicle is 404 with the /v1 call\'s message (View not found, Vehicle not found)', async () => {
      const c = await customerWithUrl('format=png&width=200&color=yellow', `${SINGLE}/rear`);
      expect((await gw.admin.call('PATCH', `/vehicles/${c.vehicle}/views/rear`, { published: false })).status).to.equal(200);
      expectError((await until(c.url, 404, 3000)).a, 404, 'not_found', 'View not found');
      expect((await gw.admin.call('PATCH', `/vehicles/${c.vehicle}/views/rear`, { published: true })).status).to.equal(200);
      expect((await until(c.url, 200, 3000)).a.status).to.equal(200);
      expect((await gw.admin.call('PATCH', `/vehicles/${c.vehicle}`, { published: false })).status).to.equal(200);
      expectError((await until(c.url, 404, 3000)).a, 404, 'not_found', 'Vehicle not found');
      expect((await gw.admin.call('PATCH', `/vehicles/${c.vehicle}`, { published: true })).status).to.equal(200);
    });

    it('on another gateway instance a ban shows within its auth cache lifetime (1 s here; at once with Redis)', async () => {
      const c = await customerWithUrl();
      const there = c.url.replace(`:${gw.port}/`, `:${second.port}/`);
      expect((await request(there)).status).to.equal(200); // cached there as allowed
      await gw.admin.ban(c.member);
      const { a, ms } = await until(there, 403, 5000);
      expectError(a, 403, 'forbidden', 'Organization access is disabled');
      expect(ms).to.be.below(2500);
    });
  });

  describe('security', () => {
    it('a URL without an organisation in its token (issued before grants) no longer verifies', async () => {
      const c = await customerWithUrl();
      const file = c.url.split('/images/')[1]!;
      const token = file.slice(0, file.lastIndexOf('.'));
      const d = jwt.decode(token, { complete: true })!;
      const { o: _o, k: _k, ...old } = d.payload as Record<string, unknown>;
      const stored = JSON.parse(fs.readFileSync(`${gw.dataDir}/secrets.json`, 'utf8')).imageSigningKey;
      const legacy = jwt.sign(old, Buffer.from(stored.secret, 'base64url'), { algorithm: 'HS256', keyid: d.header.kid });
      expectError(await request(`${gw.url}/images/${legacy}.png`), 401, 'unauthorized');
    });

    it('a grant naming another organisation than its key is refused (401)', async () => {
      const c = await customerWithUrl();
      const other = await gw.admin.customer();
      const file = c.url.split('/images/')[1]!;
      const d = jwt.decode(file.slice(0, file.lastIndexOf('.')), { complete: true })!;
      const stored = JSON.parse(fs.readFileSync(`${gw.dataDir}/secrets.json`, 'utf8')).imageSigningKey;
      const mixed = jwt.sign({ ...(d.payload as object), o: other.org }, Buffer.from(stored.secret, 'base64url'), { algorithm: 'HS256', keyid: d.header.kid });
      expectError(await request(`${gw.url}/images/${mixed}.png`), 401, 'unauthorized');
    });

    it('a revoked grant is refused before any conditional answer (no 304 for a revoked key)', async () => {
      const c = await customerWithUrl('format=png&width=200&color=orange');
      const etag = (await fetch(c.url)).headers.get('etag')!;
      await gw.admin.revokeKey(c.keyId);
      const a = await request(c.url, { headers: { 'if-none-match': etag } });
      expectError(a, 401, 'unauthorized');
    });
  });
});
