/**
 * GET /v1/vehicles/{vehicle_id}/spin and the contract feature that sells it (docs/api.md, "Spins" and
 * "Contract features"). Real gateways (PGlite or PostgreSQL/Redis per backend.ts) on port 0 and a real
 * cpu renderer over gRPC; usage is read through the admin API.
 *
 * The end-to-end group (a glTF set with its 3D source, frames downloaded and measured) bakes its set
 * with test/support/spin-set.ts, so it needs a WebGL 2 context (test/support/webgl.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';
import { alphaEdges } from '../support/alpha-box.ts';
import { makeSpinSet } from '../support/spin-set.ts';
import { skipWithoutWebGl } from '../support/webgl.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';
const GT = '/v1/makes/aurelia/models/vento/2024/gt'; // category sports
const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

describe(`spin call and the contract's features (${backendLabel()})`, function () {
  this.timeout(90_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  let withSpin: { org: string; key: string; keyId: string };
  let without: { org: string; key: string; keyId: string };
  let vehicleId: string;
  let gtId: string;
  let unpublishedId: string;

  const spin = (q = '', key = withSpin.key, id = vehicleId) => gw.getWithKey(key, `/v1/vehicles/${id}/spin${q}`);
  const used = async (org: string) => (await gw.admin.usage(org)).requests;

  before(async () => {
    renderer = await startTestRenderer();
    gw = await startTestGateway({ renderer: renderer.client });
    withSpin = await gw.admin.customer({ features: ['spin'] });
    without = await gw.admin.customer();
    vehicleId = (await gw.getWithKey(withSpin.key, SINGLE)).body.vehicle.id;
    gtId = (await gw.getWithKey(withSpin.key, GT)).body.vehicle.id;
    unpublishedId = (await gw.db.query<{ id: string }>('SELECT id FROM vehicles WHERE NOT published'))[0]!.id;
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
  });

  describe('contract features', () => {
    it('the admin PUT takes features; the admin GET, the PUT answer and /v1/me show them, always as a list', async () => {
      const org = await gw.admin.createOrg();
      const put = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, {
        categories: ['suv'], allowed_formats: ['webp'], rpm_limit: 10, monthly_quota: 100, active: true, features: ['spin', 'spin'],
      });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.features).to.deep.equal(['spin']);
      const get = await gw.admin.call('GET', `/organizations/${org.id}/contract`);
      expect(get.body.features).to.deep.equal(['spin']);
      const key = (await gw.admin.createKey(org.id)).key;
      expect((await gw.getWithKey(key, '/v1/me')).body.contract.features).to.deep.equal(['spin']);

      // absent keeps them (as allowed_origins); an empty list clears them
      const kept = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, {
        categories: ['suv'], allowed_formats: ['webp'], rpm_limit: 11, monthly_quota: 100, active: true,
      });
      expect(kept.body.features).to.deep.equal(['spin']);
      const cleared = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, {
        categories: ['suv'], allowed_formats: ['webp'], rpm_limit: 11, monthly_quota: 100, active: true, features: [],
      });
      expect(cleared.body.features).to.deep.equal([]);
      expect((await gw.getWithKey(key, '/v1/me')).body.contract.features).to.deep.equal([]);
      expect((await gw.admin.call('GET', `/organizations/${org.id}`)).body.contract.features).to.deep.equal([]);
    });

    it('a new contract without features has none', async () => {
      const c = await gw.admin.customer();
      expect((await gw.getWithKey(c.key, '/v1/me')).body.contract.features).to.deep.equal([]);
    });

    it('unknown feature names are refused with 400 naming them, and nothing is stored', async () => {
      const org = await gw.admin.createOrg();
      const body = { categories: ['suv'], allowed_formats: ['webp'], rpm_limit: 10, monthly_quota: 100, active: true };
      const bad = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, { ...body, features: ['spin', 'turbo', 'x-ray', 'turbo'] });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.equal({ error: 'bad_request', message: 'Unknown features: turbo, x-ray (known: spin)' });
      expect((await gw.admin.call('GET', `/organizations/${org.id}/contract`)).status).to.equal(404);
      const notList = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, { ...body, features: 'spin' });
      expect(notList.body).to.deep.equal({ error: 'bad_request', message: 'Invalid features: it must be a list' });
    });
  });

  describe('error', () => {
    const expectError = async (q: string, status: number, error: string, message: string, id = vehicleId, key = withSpin.key) => {
      const a = await spin(q, key, id);
      expect(a.status, `${q}: ${a.text}`).to.equal(status);
      expect(a.body).to.deep.equal({ error, message });
      return a;
    };

    it('403 "Spin is not included in this contract" without the feature, and the call counted once', async () => {
      const before = await used(without.org);
      const a = await expectError('', 403, 'forbidden', 'Spin is not included in this contract', vehicleId, without.key);
      expect(await used(without.org)).to.equal(before + 1);
      expect(a.headers.get('ratelimit'), 'a counted call carries the rate-limit headers').to.match(/"minute";r=\d+/);
    });

    it('404 "No spin is available for this vehicle" for a vehicle whose set has no 3D source, counted once', async () => {
      const before = await used(withSpin.org);
      await expectError('?frames=12', 404, 'not_found', 'No spin is available for this vehicle');
      expect(await used(withSpin.org)).to.equal(before + 1);
    });

    it('options are refused with the image call\'s messages (and the spin\'s own for frames), before any 403', async () => {
      await expectError('?frames=7', 400, 'bad_request', 'Invalid frames: use 8, 12, 24, 36, 72');
      await expectError('?frames=abc', 400, 'bad_request', 'Invalid frames: use 8, 12, 24, 36, 72');
      await expectError('?frames=12&frames=24', 400, 'bad_request', 'Parameter frames must be given once');
      await expectError('?width=abc', 400, 'bad_request', 'Invalid width: must be an integer number of pixels');
      await expectError('?color=nope', 400, 'bad_request', 'Invalid color: use a named color or a hex value of 3 or 6 digits');
      await expectError('?format=gif', 400, 'bad_request', 'Invalid format: use webp, png or jpeg');
      await expectError('?shadow=yes', 400, 'bad_request', 'Invalid shadow: use true, 1, false or 0');
      await expectError('?plate=%24%24', 400, 'bad_request', 'Invalid plate: use letters A-Z, Ä, Ö, Ü, digits, spaces and hyphens');
      await expectError('?background=transparent&format=jpeg', 400, 'bad_request', 'Invalid background: transparent needs format webp or png (jpeg has no alpha channel)');
      await expectError('?framing=zoom', 400, 'bad_request', 'Invalid framing: use studio or fit');
      await expectError('?framing=fit&margin=41', 400, 'bad_request', 'Invalid margin: use an integer percent from 0 to 40');
      await expectError('?aspect=5:4', 400, 'bad_request', 'Invalid aspect: use 16:9, 3:2, 4:3, 1:1, 2:1');
      // a bad option is answered before the missing feature
      await expectError('?frames=7', 400, 'bad_request', 'Invalid frames: use 8, 12, 24, 36, 72', vehicleId, without.key);
    });

    it('format, feature, vehicle and category in that order', async () => {
      const narrow = await gw.admin.customer({ allowed_formats: ['webp'], categories: ['passenger-car'], features: ['spin'] });
      const narrowWithout = await gw.admin.customer({ allowed_formats: ['webp'] });
      await expectError('?format=png', 403, 'forbidden', 'Format png is not included in this contract', vehicleId, narrow.key);
      // the contract's checks come before the vehicle is looked up, the format first
      await expectError('?format=png', 403, 'forbidden', 'Format png is not included in this contract', 'veh_nothing', narrowWithout.key);
      await expectError('', 403, 'forbidden', 'Spin is not included in this contract', 'veh_nothing', without.key);
      await expectError('', 404, 'not_found', 'Vehicle not found', 'veh_nothing');
      await expectError('', 404, 'not_found', 'Vehicle not found', unpublishedId);
      await expectError('', 403, 'forbidden', 'Contract does not include this vehicle category', gtId, narrow.key);
    });

    it('503 with Retry-After while no renderer can say whether the set has a spin', async () => {
      const lone = await startTestGateway({ renderer: null });
      try {
        const c = await lone.admin.customer({ features: ['spin'] });
        const id = (await lone.getWithKey(c.key, SINGLE)).body.vehicle.id;
        const a = await lone.getWithKey(c.key, `/v1/vehicles/${id}/spin`);
        expect(a.status).to.equal(503);
        expect(a.body).to.deep.equal({ error: 'unavailable', message: 'The service is temporarily unavailable, retry later' });
        expect(a.headers.get('retry-after')).to.equal('5');
      } finally {
        await lone.close();
      }
    });
  });

  describe('security', () => {
    it('needs a key (401, not counted) and answers JSON errors with exactly error and message', async () => {
      const a = await gw.get(`/v1/vehicles/${vehicleId}/spin`);
      expect(a.status).to.equal(401);
      expect(Object.keys(a.body).sort()).to.deep.equal(['error', 'message']);
      const odd = await spin('', withSpin.key, '%ZZ');
      expect(odd.status).to.equal(400);
      expect(odd.body).to.deep.equal({ error: 'bad_request', message: 'The request is malformed' });
    });

    it('a vehicle id outside the id alphabet is 404 before any lookup', async () => {
      const a = await spin('', withSpin.key, 'a.b');
      expect(a.status).to.equal(404);
      expect(Object.keys(a.body).sort()).to.deep.equal(['error', 'message']);
    });

    it('only GET: another method is 405 with Allow', async () => {
      const res = await fetch(`${gw.url}/v1/vehicles/${vehicleId}/spin`, { method: 'POST', headers: { 'x-api-key': withSpin.key } });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.match(/GET/);
      await res.arrayBuffer();
    });
  });
});

describe(`spin end to end: a glTF set with its 3D source (${backendLabel()})`, function () {
  this.timeout(600_000);
  let tmp = '';
  let gw: TestGateway | null = null;
  let renderer: TestRenderer | null = null;
  let customer: { org: string; key: string; keyId: string };
  let vehicleId = '';

  before(async function () {
    await skipWithoutWebGl(this);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-spin-'));
    const assetsDir = path.join(tmp, 'assets');
    fs.mkdirSync(assetsDir);
    const setDir = await makeSpinSet(assetsDir, 'spin-car');
    const setId = path.basename(setDir);
    renderer = await startTestRenderer({ env: { ASSETS_DIR: assetsDir, SPIN_FRAMES_DIR: path.join(tmp, 'frames') } });
    gw = await startTestGateway({ renderer: renderer.client, env: { ASSETS_DIR: assetsDir } });
    const imported = await gw.admin.call('POST', '/catalog/import', {
      format: 'vehicle-catalog/v1',
      categories: [{ slug: 'sports', name: 'Sports' }],
      makes: [{ slug: 'turna', name: 'Turna', models: [{ slug: 'tavola', name: 'Tavola', years: [{ year: 2026, variants: [
        { slug: null, name: null, category: 'sports', asset_set: setId, published: true, unpublished_views: [] },
      ] }] }] }],
    });
    expect(imported.status, imported.text).to.equal(200);
    customer = await gw.admin.customer({ categories: ['sports'], features: ['spin'] });
    vehicleId = (await gw.getWithKey(customer.key, '/v1/makes/turna/models/tavola/2026')).body.vehicle.id;
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const download = async (url: string) => {
    const res = await fetch(local(url));
    expect(res.status, await res.clone().text().catch(() => '')).to.equal(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('12 frames at 200 px in yaw order; each URL downloads (not counted) and decodes at the asked size', async () => {
    const before = (await gw!.admin.usage(customer.org)).requests;
    const a = await gw!.getWithKey(customer.key, `/v1/vehicles/${vehicleId}/spin?frames=12&width=200&format=png&color=red`);
    expect(a.status, a.text).to.equal(200);
    expect(Object.keys(a.body).sort()).to.deep.equal(['expires_at', 'frames', 'options', 'vehicle', 'warnings']);
    expect(a.body.vehicle.id).to.equal(vehicleId);
    expect(a.body.options).to.deep.equal({ color: '#C41E3A', color_name: 'red', shadow: true, format: 'png', width: 200, frames: 12 });
    expect(a.body.frames.map((f: { yaw_degrees: number }) => f.yaw_degrees)).to.deep.equal([0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330]);
    expect(a.body.frames.map((f: { index: number }) => f.index)).to.deep.equal([...Array(12).keys()]);
    expect((await gw!.admin.usage(customer.org)).requests).to.equal(before + 1);
    const seen = new Set<string>();
    for (const f of a.body.frames) {
      expect(Object.keys(f).sort()).to.deep.equal(['image_url', 'index', 'layout', 'yaw_degrees']);
      const bytes = await download(f.image_url);
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height]).to.deep.equal(['png', 200, 113]);
      expect(f.layout.width).to.equal(200);
      seen.add((await sharp(bytes).raw().toBuffer()).toString('base64'));
    }
    expect(seen.size, 'every frame is another picture').to.equal(12);
    expect((await gw!.admin.usage(customer.org)).requests, 'downloads are not counted').to.equal(before + 1);
  });

  it('the layout\'s vehicle box agrees with the non-transparent pixels of a transparent frame within 2 px', async () => {
    const a = await gw!.getWithKey(customer.key, `/v1/vehicles/${vehicleId}/spin?frames=8&width=400&format=png&background=transparent&shadow=false`);
    expect(a.status, a.text).to.equal(200);
    for (const f of a.body.frames) {
      const got = await alphaEdges(await download(f.image_url));
      const b = f.layout.vehicle_box;
      const want = [b.x, b.y, b.x + b.width, b.y + b.height];
      for (let i = 0; i < 4; i++) expect(Math.abs(got.edges[i]! - want[i]!), `yaw ${f.yaw_degrees} edge ${i}: ${got.edges} vs ${want}`).to.be.at.most(2);
    }
  });

  it('the plate is drawn on the frames that show one, with no warning; a download of a frame re-checks the spin feature', async () => {
    const a = await gw!.getWithKey(customer.key, `/v1/vehicles/${vehicleId}/spin?frames=8&width=200&plate=AB%20123`);
    expect(a.status, a.text).to.equal(200);
    expect(a.body.warnings).to.deep.equal([]);
    const quads = a.body.frames.map((f: { layout: { plate_quad: unknown } }) => f.layout.plate_quad !== null);
    expect(quads[0], 'the front frame shows the front plate').to.equal(true);
    expect(quads[2], 'yaw 90 (the left side) shows none').to.equal(false);
    await gw!.admin.putContract(customer.org, { categories: ['sports'], features: [] });
    const res = await fetch(local(a.body.frames[0].image_url));
    expect(res.status).to.equal(403);
    expect(await res.json()).to.deep.equal({ error: 'forbidden', message: 'Spin is not included in this contract' });
    await gw!.admin.putContract(customer.org, { categories: ['sports'], features: ['spin'] });
  });
});
