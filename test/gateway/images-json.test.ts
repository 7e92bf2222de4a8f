import { expect } from 'chai';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023'; // one variant
const MULTI = '/v1/makes/aurelia/models/vento/2024'; // base, gt (sports), estate

describe(`image JSON (${backendLabel()})`, () => {
  let gw: TestGateway;
  let key: string;
  before(async () => {
    gw = await startTestGateway();
    key = (await gw.admin.customer()).key;
  });
  after(async () => {
    await gw?.close();
  });
  const get = (p: string, k = key) => gw.getWithKey(k, p);
  const expectError = async (p: string, status: number, error: string, message?: string, k = key) => {
    const a = await get(p, k);
    expect(a.status, p).to.equal(status);
    expect(Object.keys(a.body)).to.have.members(['error', 'message']);
    expect(a.body.error).to.equal(error);
    if (message) expect(a.body.message).to.equal(message);
  };

  describe('happy', () => {
    it('defaults: white, shadow, webp, 1600 px; named colour gives color_name', async () => {
      const a = await get(`${SINGLE}/front_left`);
      expect(a.status).to.equal(200);
      expect(a.body.view).to.equal('front_left');
      expect(a.body.options).to.deep.equal({ color: '#F5F5F5', color_name: 'white', shadow: true, format: 'webp', width: 1600 });
      expect(a.body.vehicle).to.include({ make: 'Aurelia', model: 'Vento', year: 2023, variant: null, category: 'Passenger car' });
      expect(a.body.vehicle.id).to.be.a('string');
      expect(a.body.vehicle.category_id).to.be.a('string');
      expect(a.body.warnings).to.deep.equal([]);
      expect(a.body.image_url).to.match(/^http:\/\/localhost:\d+\/images\/[\w-]+\.[\w-]+\.[\w-]+\.webp$/);
      expect(Date.parse(a.body.expires_at)).to.be.greaterThan(Date.now());
    });

    it('named colours resolve to the spec hex; custom hex (3 or 6 digits, with or without #) gives color_name null', async () => {
      expect((await get(`${SINGLE}/front?color=red`)).body.options).to.include({ color: '#C41E3A', color_name: 'red' });
      expect((await get(`${SINGLE}/front?color=Silver`)).body.options).to.include({ color: '#C0C0C0', color_name: 'silver' });
      expect((await get(`${SINGLE}/front?color=%23abc`)).body.options).to.include({ color: '#AABBCC', color_name: null });
      expect((await get(`${SINGLE}/front?color=12ab9F`)).body.options).to.include({ color: '#12AB9F', color_name: null });
    });

    it('shadow accepts true, 1, false, 0', async () => {
      for (const [v, b] of [['true', true], ['1', true], ['false', false], ['0', false]] as const) {
        expect((await get(`${SINGLE}/front?shadow=${v}`)).body.options.shadow).to.equal(b);
      }
    });

    it('formats webp, png, jpeg; the URL ends in the format', async () => {
      for (const f of ['webp', 'png', 'jpeg']) {
        const a = await get(`${SINGLE}/rear?format=${f}`);
        expect(a.body.options.format).to.equal(f);
        expect(a.body.image_url.endsWith(`.${f}`)).to.equal(true);
      }
    });

    it('width is clamped into 200..2400, not rejected', async () => {
      expect((await get(`${SINGLE}/front?width=50`)).body.options.width).to.equal(200);
      expect((await get(`${SINGLE}/front?width=-5`)).body.options.width).to.equal(200);
      expect((await get(`${SINGLE}/front?width=99999`)).body.options.width).to.equal(2400);
      expect((await get(`${SINGLE}/front?width=800`)).body.options.width).to.equal(800);
      // however many digits: clamped, never refused (spec rule 6)
      expect((await get(`${SINGLE}/front?width=1234567890`)).body.options.width).to.equal(2400);
      expect((await get(`${SINGLE}/front?width=${'9'.repeat(400)}`)).body.options.width).to.equal(2400);
      expect((await get(`${SINGLE}/front?width=-99999999999`)).body.options.width).to.equal(200);
      expect((await get(`${SINGLE}/front?width=0000001600`)).body.options.width).to.equal(1600);
    });

    it('plate is echoed as requested when supplied, and absent otherwise', async () => {
      expect((await get(`${SINGLE}/front?plate=AB-123%20CD`)).body.options.plate).to.equal('AB-123 CD');
      expect((await get(`${SINGLE}/front`)).body.options).not.to.have.property('plate');
    });

    it('warnings: SHADOW_UNAVAILABLE on top_down with shadow, PLATE_UNMAPPED on a side view with a plate', async () => {
      const a = await get(`${SINGLE}/top_down`);
      expect(a.status).to.equal(200);
      expect(a.body.warnings.map((w: { code: string }) => w.code)).to.deep.equal(['SHADOW_UNAVAILABLE']);
      expect((await get(`${SINGLE}/top_down?shadow=false`)).body.warnings).to.deep.equal([]);
      const b = await get(`${SINGLE}/side_left?plate=AB%20123`);
      expect(b.body.warnings.map((w: { code: string }) => w.code)).to.deep.equal(['PLATE_UNMAPPED']);
      const c = await get(`${SINGLE}/top_down?plate=AB%20123`);
      expect(c.body.warnings.map((w: { code: string }) => w.code)).to.have.members(['SHADOW_UNAVAILABLE', 'PLATE_UNMAPPED']);
      for (const w of c.body.warnings) expect(w.message).to.be.a('string').that.is.not.empty;
    });

    it('a variant path gives the variant image; identical options give an identical URL', async () => {
      const a = await get(`${MULTI}/gt/front?color=blue&plate=X1`);
      expect(a.status).to.equal(200);
      expect(a.body.vehicle.variant).to.equal('GT');
      const b = await get(`${MULTI}/gt/front?plate=X1&color=%231E4B8C`);
      expect(b.body.image_url).to.equal(a.body.image_url);
      const c = await get(`${MULTI}/gt/front?color=blue&plate=X2`);
      expect(c.body.image_url).not.to.equal(a.body.image_url);
    });
  });

  describe('error', () => {
    it('rule 1: an invalid color is 400 bad_request', async () => {
      for (const c of ['purple', '%23abcd', '12345', 'ggg', '']) await expectError(`${SINGLE}/front?color=${c}`, 400, 'bad_request');
    });
    it('rule 2: an invalid format is 400 bad_request', async () => {
      for (const f of ['gif', 'jpg', 'WEBPX', '']) await expectError(`${SINGLE}/front?format=${f}`, 400, 'bad_request');
    });
    it('rule 3: a valid format outside allowed_formats is 403 "Format {format} is not included in this contract"', async () => {
      const k = (await gw.admin.customer({ allowed_formats: ['webp'] })).key;
      await expectError(`${SINGLE}/front?format=png`, 403, 'forbidden', 'Format png is not included in this contract', k);
      await expectError(`${SINGLE}/front?format=jpeg`, 403, 'forbidden', 'Format jpeg is not included in this contract', k);
      expect((await get(`${SINGLE}/front?format=webp`, k)).status).to.equal(200);
    });
    it('rule 4: a vehicle category outside the contract is 403 "Contract does not include this vehicle category"', async () => {
      const k = (await gw.admin.customer({ categories: ['passenger-car'] })).key;
      await expectError(`${MULTI}/gt/front`, 403, 'forbidden', 'Contract does not include this vehicle category', k);
      await expectError('/v1/makes/koruna/models/cargo/2020/front', 403, 'forbidden', 'Contract does not include this vehicle category', k);
    });
    it('rule 5: an unknown or unpublished view is 404 not_found', async () => {
      await expectError(`${MULTI}/estate/top_down`, 404, 'not_found');
      await expectError(`${MULTI}/estate/bottom_up`, 404, 'not_found');
      await expectError(`${SINGLE}/interior`, 404, 'not_found');
    });
    it('a view without the variant on a multi-variant year is 404 with a hint', async () => {
      const a = await get(`${MULTI}/front`);
      expect(a.status).to.equal(404);
      expect(a.body.message).to.match(/variant/);
    });
    it('an unpublished vehicle is 404, and an unpublished view 404 again after publishing the vehicle view', async () => {
      await expectError('/v1/makes/aurelia/models/vento/2021/front', 404, 'not_found');
    });
    it('shadow values outside true/1/false/0, a non-integer width, and bad plates are 400', async () => {
      for (const q of ['shadow=yes', 'shadow=', 'width=abc', 'width=12.5', 'width=1e3', 'width=', 'width=%20100', 'width=300%20', 'width=%09300%0A', 'width=%C2%A0300', 'plate=', 'plate=%F0%9F%9A%97', 'plate=AB%3C123', `plate=${'A'.repeat(13)}`, 'color=red&color=blue']) {
        await expectError(`${SINGLE}/front?${q}`, 400, 'bad_request');
      }
    });

    it('a plate with a line break, a tab, another Unicode space, or a letter that only upper-cases into A-Z (ß, ı, ſ) is 400', async () => {
      for (const p of ['A%0AB', 'A%0DB', 'A%09B', 'A%C2%A0B', '%C3%9F', 'X%C4%B1', '%C5%BFX', 'AB%0A']) {
        await expectError(`${SINGLE}/front?plate=${p}`, 400, 'bad_request', 'Invalid plate: use letters A-Z, Ä, Ö, Ü, digits, spaces and hyphens');
      }
      // lower case is the same letter, and an Ä typed as A + combining diaeresis is the Ä
      const a = await get(`${SINGLE}/front?plate=m%C3%BC%20a${encodeURIComponent('\u0308')}%201`);
      expect(a.status, a.text).to.equal(200);
    });
    it('rule order: a bad colour is 400 even where the category is forbidden; the format 403 comes before the category 403', async () => {
      const k = (await gw.admin.customer({ categories: ['passenger-car'], allowed_formats: ['webp'] })).key;
      await expectError(`${MULTI}/gt/front?color=nope`, 400, 'bad_request', undefined, k);
      await expectError(`${MULTI}/gt/front?format=png`, 403, 'forbidden', 'Format png is not included in this contract', k);
    });
  });

  describe('security', () => {
    it('the image URL carries no API key, only the ids of the grant (organisation and key, issue 14)', async () => {
      const a = await get(`${SINGLE}/front`);
      expect(a.body.image_url).not.to.contain(key);
      expect(a.body.image_url).not.to.contain(key.slice('svc_live_'.length));
      const payload = JSON.parse(Buffer.from(a.body.image_url.split('/images/')[1].split('.')[1], 'base64url').toString()) as Record<string, unknown>;
      expect(payload.o).to.be.a('string').that.matches(/^[\w-]+$/);
      expect(payload.k).to.be.a('string').that.matches(/^[\w-]+$/);
      expect(Object.keys(payload).filter((k) => !['s', 'r', 'v', 'c', 'sh', 'p', 'f', 'w', 'bg', 'veh', 'cv', 'o', 'k', 'exp', 'iss', 'aud'].includes(k))).to.deep.equal([]);
    });
  });
});
