/**
 * GET /v1/vehicles/{vehicle_id}/images: every published view (or the listed ones) of a vehicle in
 * one counted call, each view under the spec's section 4 rules. A real gateway (PGlite or
 * PostgreSQL/Redis per backend.ts) and a real cpu renderer: the URLs it answers download real
 * pictures, decoded and measured here.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { VIEW_IDS } from '../../shared/views.ts';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';
const ESTATE = '/v1/makes/aurelia/models/vento/2024/estate'; // top_down unpublished
const GT = '/v1/makes/aurelia/models/vento/2024/gt'; // category sports
const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

describe(`batch images (${backendLabel()})`, function () {
  this.timeout(90_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  let customer: { org: string; key: string; keyId: string };
  let vehicleId: string;
  let estateId: string;
  let gtId: string;
  let unpublishedId: string;

  const batch = (q = '', key = customer.key, id = vehicleId) => gw.getWithKey(key, `/v1/vehicles/${id}/images${q}`);
  const used = async (org = customer.org) => (await gw.admin.usage(org)).requests;

  before(async () => {
    renderer = await startTestRenderer();
    gw = await startTestGateway({ renderer: renderer.client });
    customer = await gw.admin.customer();
    vehicleId = (await gw.getWithKey(customer.key, SINGLE)).body.vehicle.id;
    estateId = (await gw.getWithKey(customer.key, ESTATE)).body.vehicle.id;
    gtId = (await gw.getWithKey(customer.key, GT)).body.vehicle.id;
    const rows = await gw.db.query<{ id: string }>('SELECT id FROM vehicles WHERE NOT published');
    unpublishedId = rows[0]!.id;
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
  });

  describe('happy', () => {
    it('without views: every published view in catalog order, as the single call answers each, in one counted call', async () => {
      const before = await used();
      const a = await batch('?color=red&width=320&format=png&plate=ab%2012');
      expect(a.status, a.text).to.equal(200);
      expect(await used()).to.equal(before + 1);
      expect(a.headers.get('ratelimit')).to.match(/"minute";r=\d+/);
      expect(a.body.vehicle_id).to.equal(vehicleId);
      expect(a.body.vehicle.id).to.equal(vehicleId);
      expect(a.body.images.map((i: { view: string }) => i.view)).to.deep.equal([...VIEW_IDS]);
      for (const img of a.body.images) {
        expect(Object.keys(img)).to.have.members(['view', 'options', 'image_url', 'expires_at', 'warnings', 'layout']);
        expect(img.options).to.deep.equal({ color: '#C41E3A', color_name: 'red', shadow: true, plate: 'ab 12', format: 'png', width: 320 });
        expect(new URL(img.image_url).pathname).to.match(/^\/images\/[\w-]+\.[\w-]+\.[\w-]+\.png$/);
      }
      // warnings per view: top_down has no shadow and no plate, the side views no plate
      const codes = Object.fromEntries(a.body.images.map((i: { view: string; warnings: Array<{ code: string }> }) => [i.view, i.warnings.map((w) => w.code)]));
      expect(codes.top_down).to.deep.equal(['SHADOW_UNAVAILABLE', 'PLATE_UNMAPPED']);
      expect(codes.side_left).to.deep.equal(['PLATE_UNMAPPED']);
      expect(codes.side_right).to.deep.equal(['PLATE_UNMAPPED']);
      expect(codes.front).to.deep.equal([]);

      // each item equals what the single image call answers for that view (URL aside: signed separately)
      for (const view of ['front', 'top_down']) {
        const single = await gw.getWithKey(customer.key, `${SINGLE}/${view}?color=red&width=320&format=png&plate=ab%2012`);
        const item = a.body.images.find((i: { view: string }) => i.view === view);
        expect(item.options).to.deep.equal(single.body.options);
        expect(item.warnings).to.deep.equal(single.body.warnings);
      }
    });

    it('the URLs download real pictures of the asked format and width, the same picture as the single call', async () => {
      const a = await batch('?views=front,top_down&color=%2300aa55&width=400&format=webp');
      expect(a.status, a.text).to.equal(200);
      for (const img of a.body.images) {
        const res = await fetch(local(img.image_url));
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('image/webp');
        const buf = Buffer.from(await res.arrayBuffer());
        const meta = await sharp(buf).metadata();
        expect(meta.format).to.equal('webp');
        expect(meta.width).to.equal(400);
        const stats = await sharp(buf).stats();
        expect(stats.channels[0]!.stdev, 'a picture, not a flat fill').to.be.greaterThan(5);
        const single = await gw.getWithKey(customer.key, `${SINGLE}/${img.view}?color=%2300aa55&width=400&format=webp`);
        const same = await fetch(local(single.body.image_url));
        expect(same.headers.get('etag')).to.equal(res.headers.get('etag'));
        await same.arrayBuffer();
      }
    });

    it('all nine URLs fetched at once, as a page does, download (over the renders in flight they wait their turn)', async () => {
      const a = await batch('?color=2a7f3c&width=256&format=webp');
      expect(a.status, a.text).to.equal(200);
      const answers = await Promise.all(a.body.images.map((i: { image_url: string }) => fetch(local(i.image_url))));
      expect(answers.map((r) => r.status)).to.deep.equal(a.body.images.map(() => 200));
      for (const r of answers) {
        const meta = await sharp(Buffer.from(await r.arrayBuffer())).metadata();
        expect([meta.format, meta.width]).to.deep.equal(['webp', 256]);
      }
    });

    it('a listed subset comes back in the listed order, a repeated view once', async () => {
      const a = await batch('?views=rear,%20front,rear');
      expect(a.status, a.text).to.equal(200);
      expect(a.body.images.map((i: { view: string }) => i.view)).to.deep.equal(['rear', 'front']);
      expect(a.body.images[0].options).to.deep.equal({ color: '#F5F5F5', color_name: 'white', shadow: true, format: 'webp', width: 1600 });
    });

    it('an unpublished view is left out of "every view"; the width is clamped; background=transparent is answered', async () => {
      const a = await batch('?width=5000&background=transparent&format=png', customer.key, estateId);
      expect(a.status, a.text).to.equal(200);
      const views = a.body.images.map((i: { view: string }) => i.view);
      expect(views).to.deep.equal(VIEW_IDS.filter((v) => v !== 'top_down'));
      expect(a.body.images[0].options.width).to.equal(2400);
      expect(a.body.images[0].options.background).to.equal('transparent');
      const small = await batch('?views=front&width=10&background=transparent&format=png', customer.key, estateId);
      expect(small.body.images[0].options.width).to.equal(200);
      const res = await fetch(local(small.body.images[0].image_url));
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(meta.width).to.equal(200);
      expect(meta.hasAlpha).to.equal(true);
    });
  });

  describe('error', () => {
    const expectError = async (q: string, status: number, error: string, message?: RegExp, id = vehicleId, key = customer.key) => {
      const a = await batch(q, key, id);
      expect(a.status, `${q}: ${a.text}`).to.equal(status);
      expect(Object.keys(a.body)).to.have.members(['error', 'message']);
      expect(a.body.error).to.equal(error);
      if (message) expect(a.body.message).to.match(message);
      return a;
    };

    it('unknown, empty or repeated views parameters are 400, and counted', async () => {
      const before = await used();
      await expectError('?views=front,wheel', 400, 'bad_request', /^Invalid views: unknown view id "wheel"; use front_left, /);
      await expectError('?views=', 400, 'bad_request', /^Invalid views/);
      await expectError('?views=front,,rear', 400, 'bad_request', /^Invalid views/);
      await expectError('?views=front&views=rear', 400, 'bad_request', /given once/);
      await expectError('?views=%3Cscript%3E', 400, 'bad_request', /^Invalid views: unknown view id; use /);
      expect(await used()).to.equal(before + 5);
    });

    it('the single call\'s option rules: colour, format, shadow, plate, width, background', async () => {
      await expectError('?color=nope', 400, 'bad_request', /^Invalid color/);
      await expectError('?format=gif', 400, 'bad_request', /^Invalid format/);
      await expectError('?shadow=yes', 400, 'bad_request', /^Invalid shadow/);
      await expectError('?plate=%24%24', 400, 'bad_request', /^Invalid plate/);
      await expectError('?width=12.5', 400, 'bad_request', /^Invalid width/);
      await expectError('?background=transparent&format=jpeg', 400, 'bad_request', /^Invalid background/);
    });

    it('a listed view that is not published is 404 for the whole call; an unknown or unpublished vehicle 404', async () => {
      await expectError('?views=front,top_down', 404, 'not_found', /top_down/, estateId);
      await expectError('', 404, 'not_found', /^Vehicle not found$/, 'veh_doesnotexist');
      await expectError('', 404, 'not_found', /^Vehicle not found$/, unpublishedId);
      await expectError('', 404, 'not_found', undefined, 'not-an-id');
    });

    it('format outside the contract, then category outside the contract: 403 with the spec\'s messages, in that order', async () => {
      const narrow = await gw.admin.customer({ categories: ['passenger-car'], allowed_formats: ['webp'] });
      await expectError('?format=png', 403, 'forbidden', /^Format png is not included in this contract$/, vehicleId, narrow.key);
      await expectError('', 403, 'forbidden', /^Contract does not include this vehicle category$/, gtId, narrow.key);
      // the option 400 comes before the format 403, the format 403 before the category 403
      await expectError('?color=nope&format=png', 400, 'bad_request', undefined, gtId, narrow.key);
      await expectError('?format=png', 403, 'forbidden', /^Format png/, gtId, narrow.key);
    });
  });

  describe('security', () => {
    it('no key, an unknown key or a revoked key: 401; a banned member: 403 and not billed', async () => {
      expect((await gw.get(`/v1/vehicles/${vehicleId}/images`)).status).to.equal(401);
      expect((await batch('', 'svc_live_notarealkeyatall')).status).to.equal(401);
      const c = await gw.admin.customer();
      await gw.admin.revokeKey(c.keyId);
      expect((await batch('', c.key)).status).to.equal(401);
      const d = await gw.admin.customer();
      const m = await gw.admin.addMember(d.org, 'batch-ban@example.com');
      await gw.admin.ban(m.id);
      const before = await used(d.org);
      const banned = await batch('', d.key);
      expect(banned.status).to.equal(403);
      expect(banned.body).to.deep.equal({ error: 'forbidden', message: 'Organization access is disabled' });
      expect(await used(d.org)).to.equal(before);
    });

    it('counts as one call against the per-minute limit, whatever the number of views', async () => {
      const c = await gw.admin.customer({ rpm_limit: 2 });
      expect((await batch('', c.key)).status).to.equal(200);
      expect((await batch('', c.key)).status).to.equal(200);
      const third = await batch('', c.key);
      expect(third.status).to.equal(429);
      expect(third.body.error).to.equal('rate_limited');
      expect(Number(third.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('the answer carries no API key; a quote or SQL in the id never reaches the database as such', async () => {
      const a = await batch();
      expect(a.text).not.to.contain(customer.key);
      expect(a.text).not.to.contain(customer.key.slice('svc_live_'.length, 20));
      for (const id of ["veh_x'%20OR%20'1'='1", 'veh_%00', '..%2F..%2Fadmin']) {
        const r = await batch('', customer.key, id);
        expect(r.status, id).to.equal(404);
        expect(r.body.error).to.equal('not_found');
      }
    });

    it('a revoked key\'s batch URLs stop downloading', async () => {
      const c = await gw.admin.customer();
      const a = await batch('?views=front&width=200', c.key);
      await gw.admin.revokeKey(c.keyId);
      const res = await fetch(local(a.body.images[0].image_url));
      expect(res.status).to.equal(401);
      await res.arrayBuffer();
    });
  });
});
