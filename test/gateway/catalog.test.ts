import { expect } from 'chai';
import { VIEW_IDS } from '../../shared/views.ts';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

// The test catalog (support/test-catalog.json) is imported into every test
// gateway: Aurelia Vento 2024 has three variants (base, gt [sports], estate), 2023 one, 2021 is unpublished;
// Aurelia Terra (suv), Koruna Cargo (light-commercial), Mirelle Étoile 2019 (sports, two variants).
describe(`catalog walk (${backendLabel()})`, () => {
  let gw: TestGateway;
  let all: string;
  let carsOnly: string;
  before(async () => {
    gw = await startTestGateway();
    all = (await gw.admin.customer()).key;
    carsOnly = (await gw.admin.customer({ categories: ['passenger-car'] })).key;
  });
  after(async () => {
    await gw?.close();
  });
  const notFound = async (key: string, p: string) => {
    const a = await gw.getWithKey(key, p);
    expect(a.status, p).to.equal(404);
    expect(a.body.error).to.equal('not_found');
    expect(Object.keys(a.body)).to.have.members(['error', 'message']);
  };

  describe('happy', () => {
    it('GET /v1/makes lists {id, slug, name} of makes with visible vehicles', async () => {
      const a = await gw.getWithKey(all, '/v1/makes');
      expect(a.status).to.equal(200);
      expect(a.body.makes.map((m: { slug: string }) => m.slug)).to.deep.equal(['aurelia', 'koruna', 'mirelle']);
      for (const m of a.body.makes) expect(Object.keys(m)).to.have.members(['id', 'slug', 'name']);
    });

    it('makes are filtered to the contract categories', async () => {
      const a = await gw.getWithKey(carsOnly, '/v1/makes');
      expect(a.body.makes.map((m: { slug: string }) => m.slug)).to.deep.equal(['aurelia']);
    });

    it('GET /v1/makes/{make} and /models give the same models with their years newest first', async () => {
      const a = await gw.getWithKey(all, '/v1/makes/aurelia');
      const b = await gw.getWithKey(all, '/v1/makes/aurelia/models');
      expect(a.status).to.equal(200);
      expect(a.body).to.deep.equal(b.body);
      expect(a.body.make.slug).to.equal('aurelia');
      const vento = a.body.models.find((m: { slug: string }) => m.slug === 'vento');
      expect(vento).to.include({ slug: 'vento', name: 'Vento' });
      expect(vento.years).to.deep.equal([2024, 2023]); // 2021 is unpublished
    });

    it('GET …/models/{model} gives {make, model, years} newest first with variant counts', async () => {
      const a = await gw.getWithKey(all, '/v1/makes/aurelia/models/vento');
      expect(a.status).to.equal(200);
      expect(Object.keys(a.body)).to.have.members(['make', 'model', 'years']);
      expect(a.body.years).to.deep.equal([
        { year: 2024, variant_count: 3 },
        { year: 2023, variant_count: 1 },
      ]);
    });

    it('a year with one visible vehicle gives {make, model, vehicle, views}', async () => {
      const a = await gw.getWithKey(all, '/v1/makes/aurelia/models/vento/2023');
      expect(a.status).to.equal(200);
      expect(Object.keys(a.body)).to.have.members(['make', 'model', 'vehicle', 'views']);
      expect(a.body.vehicle).to.include({ make: 'Aurelia', model: 'Vento', year: 2023, variant: null, category: 'Passenger car' });
      expect(a.body.vehicle.id).to.be.a('string');
      expect(a.body.vehicle.category_id).to.be.a('string');
      expect(a.body.views).to.deep.equal([...VIEW_IDS]);
    });

    it('a year with several visible variants gives {make, model, year, variants}', async () => {
      const a = await gw.getWithKey(all, '/v1/makes/aurelia/models/vento/2024');
      expect(Object.keys(a.body)).to.have.members(['make', 'model', 'year', 'variants']);
      expect(a.body.year).to.equal(2024);
      expect(a.body.variants.map((v: { slug: string }) => v.slug)).to.have.members(['base', 'gt', 'estate']);
    });

    it('the same year is a single vehicle for a contract that sees only one variant', async () => {
      const a = await gw.getWithKey(carsOnly, '/v1/makes/aurelia/models/vento/2024');
      expect(a.body.variants.map((v: { slug: string }) => v.slug)).to.have.members(['base', 'estate']);
      const sportsOnly = (await gw.admin.customer({ categories: ['sports'] })).key;
      const b = await gw.getWithKey(sportsOnly, '/v1/makes/aurelia/models/vento/2024');
      expect(b.body.vehicle.variant).to.equal('GT');
    });

    it('GET …/{year}/{variant} gives the variant and its published views', async () => {
      const a = await gw.getWithKey(all, '/v1/makes/aurelia/models/vento/2024/estate');
      expect(a.status).to.equal(200);
      expect(a.body.vehicle).to.include({ variant: 'Estate', variant_slug: 'estate', year: 2024 });
      expect(a.body.views).to.not.include('top_down'); // unpublished view
      expect(a.body.views).to.have.length(8);
    });

    it('GET /v1/colors lists the eight named colours with hex, GET /v1/views the nine views with labels', async () => {
      const c = await gw.getWithKey(all, '/v1/colors');
      expect(c.body.colors).to.deep.include({ name: 'red', hex: '#C41E3A' });
      expect(c.body.colors).to.have.length(8);
      const v = await gw.getWithKey(all, '/v1/views');
      expect(v.body.views).to.have.length(9);
      expect(v.body.views[0]).to.deep.equal({ id: 'front_left', label: 'Front left' });
      expect(v.body.views[8]).to.deep.equal({ id: 'top_down', label: 'Top down' });
    });

    it('search matches make, model, variant and year tokens, case- and accent-insensitively', async () => {
      const a = await gw.getWithKey(all, '/v1/search?q=ETOILE');
      expect(a.status).to.equal(200);
      expect(a.body.results).to.have.length(2);
      expect(a.body.results[0]).to.include({ make: 'Mirelle', makeSlug: 'mirelle', model: 'Étoile', modelSlug: 'etoile', year: 2019, category: 'Sports' });
      const b = await gw.getWithKey(all, '/v1/search?q=aur%20vent%202024%20gt');
      expect(b.body.results).to.have.length(1);
      expect(b.body.results[0].variant).to.equal('GT');
      const c = await gw.getWithKey(all, '/v1/search?q=coup%C3%A9');
      expect(c.body.results.map((r: { variant: string }) => r.variant)).to.deep.equal(['Coupé']);
    });

    it('search results are filtered to the contract, ranked whole words first, and bounded by limit', async () => {
      const a = await gw.getWithKey(carsOnly, '/v1/search?q=vento');
      expect(a.body.results.map((r: { category: string }) => r.category)).to.satisfy((cs: string[]) => cs.every((c) => c === 'Passenger car'));
      const b = await gw.getWithKey(all, '/v1/search?q=vento&limit=2');
      expect(b.body.results).to.have.length(2);
      const exact = await gw.getWithKey(all, '/v1/search?q=aurelia');
      expect(exact.body.results.length).to.be.greaterThan(0);
    });
  });

  describe('error', () => {
    it('unknown make, model, year or variant is 404', async () => {
      await notFound(all, '/v1/makes/nope');
      await notFound(all, '/v1/makes/aurelia/models/nope');
      await notFound(all, '/v1/makes/aurelia/models/vento/1999');
      await notFound(all, '/v1/makes/aurelia/models/vento/20x4');
      await notFound(all, '/v1/makes/aurelia/models/vento/2024/nope');
    });
    it('a year that is not four digits is 404 "Year not found", like an unknown year, saying it is not a year', async () => {
      for (const y of ['abcd', '20x4', '24', '1999', '99999999999']) {
        for (const rest of ['', '/front', '/gt/front']) {
          const a = await gw.getWithKey(all, `/v1/makes/aurelia/models/vento/${y}${rest}`);
          expect(a.status, y + rest).to.equal(404);
          const message = y === '1999' ? 'Year not found' : `Year not found: "${y}" is not a year; the years of this model are listed at /v1/makes/aurelia/models/vento`;
          expect(a.body, y + rest).to.deep.equal({ error: 'not_found', message });
        }
      }
    });
    it('an unpublished year is 404', async () => {
      await notFound(all, '/v1/makes/aurelia/models/vento/2021');
    });
    it('a make, model or year with nothing visible under the contract is 404', async () => {
      await notFound(carsOnly, '/v1/makes/koruna');
      await notFound(carsOnly, '/v1/makes/aurelia/models/terra');
      await notFound(carsOnly, '/v1/makes/aurelia/models/vento/2024/gt');
    });
    it('search without q, with an empty q, or a bad limit is 400', async () => {
      for (const p of ['/v1/search', '/v1/search?q=', '/v1/search?q=%20', '/v1/search?q=a&limit=0', '/v1/search?q=a&limit=x']) {
        const a = await gw.getWithKey(all, p);
        expect(a.status, p).to.equal(400);
        expect(a.body.error).to.equal('bad_request');
      }
    });
    it('a search limit of any number of digits is clamped to 100, never refused for its size', async () => {
      for (const limit of ['100', '101', '2147483647', '4294967296', '99999999999999999999999']) {
        const a = await gw.getWithKey(all, `/v1/search?q=vento&limit=${limit}`);
        expect(a.status, limit).to.equal(200);
        expect(a.body.results.length, limit).to.be.within(1, 100);
      }
      for (const limit of ['0', '00', '-1', '+5', '1.5', '%205', '5%20', '1e3']) {
        const a = await gw.getWithKey(all, `/v1/search?q=vento&limit=${limit}`);
        expect(a.status, limit).to.equal(400);
        expect(a.body, limit).to.deep.equal({ error: 'bad_request', message: 'Parameter limit must be a positive integer (at most 100 results are returned)' });
      }
    });
    it('search q is at most 200 characters as people count them (code points, an accent joined to its letter)', async () => {
      const emoji = '\u{1F697}'; // a car: two UTF-16 units, one character
      const decomposed = 'e\u0301'; // é typed as e and a combining acute
      for (const q of [emoji.repeat(200), decomposed.repeat(200), 'a'.repeat(200)]) {
        const a = await gw.getWithKey(all, `/v1/search?q=${encodeURIComponent(q)}`);
        expect(a.status, `${q.length} units`).to.equal(200);
      }
      for (const q of [emoji.repeat(201), decomposed.repeat(201), 'a'.repeat(201)]) {
        const a = await gw.getWithKey(all, `/v1/search?q=${encodeURIComponent(q)}`);
        expect(a.status, `${q.length} units`).to.equal(400);
        expect(a.body).to.deep.equal({ error: 'bad_request', message: 'Parameter q is too long (at most 200 characters)' });
      }
    });
    it('search with q or limit given twice is 400 "must be given once"; a bracketed q is no q', async () => {
      for (const [p, message] of [
        ['/v1/search?q=vento&q=x', 'Parameter q must be given once'],
        ['/v1/search?q=vento&limit=1&limit=2', 'Parameter limit must be given once'],
        ['/v1/search?q[a]=1', 'Parameter q is required: the text to search for'],
      ] as const) {
        const a = await gw.getWithKey(all, p);
        expect(a.status, p).to.equal(400);
        expect(a.body, p).to.deep.equal({ error: 'bad_request', message });
      }
    });
    it('broken percent-encoding in a query (search, image options) is 400 "The request is malformed", and counted like any /v1 call', async () => {
      const before = (await gw.getWithKey(all, '/v1/me')).body;
      for (const p of ['/v1/search?q=%zz', '/v1/search?q=%E0%A4', '/v1/search?q=vento&limit=%', '/v1/makes/aurelia/models/vento/2024/gt/front?plate=%C3', '/v1/makes?x=%G1']) {
        const a = await gw.getWithKey(all, p);
        expect(a.status, p).to.equal(400);
        expect(a.body, p).to.deep.equal({ error: 'bad_request', message: 'The request is malformed' });
      }
      const after = (await gw.getWithKey(all, '/v1/me')).body;
      expect(after.usage.requests).to.equal(before.usage.requests + 6); // the five, and this /v1/me
      // outside /v1 too (no key needed there)
      const root = await gw.get('/v1?x=%zz');
      expect(root.status).to.equal(400);
      expect(root.body).to.deep.equal({ error: 'bad_request', message: 'The request is malformed' });
    });
    it('an unknown path is 404 not_found, under /v1 and outside it', async () => {
      await notFound(all, '/v1/nothing-here');
      const a = await gw.get('/nothing-here');
      expect(a.status).to.equal(404);
      expect(a.body).to.deep.equal({ error: 'not_found', message: a.body.message });
    });
  });

  describe('security', () => {
    it('an unpublished vehicle is not reachable by search', async () => {
      const a = await gw.getWithKey(all, '/v1/search?q=vento%202021');
      expect(a.body.results).to.have.length(0);
    });
    it('SQL-looking input is just text', async () => {
      const a = await gw.getWithKey(all, "/v1/search?q=%27%3B%20DROP%20TABLE%20vehicles%3B--");
      expect(a.status).to.equal(200);
      expect((await gw.getWithKey(all, '/v1/makes')).body.makes).to.have.length(3);
      await notFound(all, "/v1/makes/'%20OR%201=1--");
    });
    it('malformed percent-encoding and an oversized query are 4xx JSON, never 500', async () => {
      const a = await gw.getWithKey(all, '/v1/makes/%E0%A4%A');
      expect(a.status).to.be.within(400, 499);
      expect(Object.keys(a.body)).to.have.members(['error', 'message']);
      const b = await gw.getWithKey(all, `/v1/search?q=${'a'.repeat(20000)}`);
      expect(b.status).to.be.within(400, 499);
      expect(Object.keys(b.body)).to.have.members(['error', 'message']);
    });
  });
});
