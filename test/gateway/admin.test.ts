import { expect } from 'chai';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

describe(`admin API (${backendLabel()})`, () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw?.close();
  });

  describe('happy', () => {
    it('GET /admin/v1/categories lists {id, slug, name}', async () => {
      const a = await gw.admin.call('GET', '/categories');
      expect(a.status).to.equal(200);
      expect(a.body.categories.map((c: { slug: string }) => c.slug)).to.have.members(['passenger-car', 'suv', 'light-commercial', 'sports']);
      for (const c of a.body.categories) expect(Object.keys(c)).to.have.members(['id', 'slug', 'name']);
    });

    it('POST /admin/v1/organizations is 201 {id, name}', async () => {
      const a = await gw.admin.call('POST', '/organizations', { name: 'Acme' });
      expect(a.status).to.equal(201);
      expect(a.body).to.deep.equal({ id: a.body.id, name: 'Acme' });
    });

    it('PUT …/contract is 200 with the contract, and replaces it on a second PUT', async () => {
      const org = await gw.admin.createOrg();
      const body = { categories: ['suv', 'sports'], allowed_formats: ['png'], rpm_limit: 30, monthly_quota: 900, active: true };
      const a = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, body);
      expect(a.status).to.equal(200);
      expect(a.body).to.deep.include({ allowed_formats: ['png'], rpm_limit: 30, monthly_quota: 900, active: true });
      expect(a.body.categories).to.have.members(['suv', 'sports']);
      const b = await gw.admin.call('PUT', `/organizations/${org.id}/contract`, { ...body, categories: ['suv'], active: false });
      expect(b.body.categories).to.deep.equal(['suv']);
      expect(b.body.active).to.equal(false);
    });

    it('POST …/keys is 201 {id, key} with the full secret; POST /keys/:id/revoke is 200', async () => {
      const org = await gw.admin.createOrg();
      const a = await gw.admin.call('POST', `/organizations/${org.id}/keys`, { name: 'web' });
      expect(a.status).to.equal(201);
      expect(a.body.id).to.be.a('string');
      expect(a.body.key).to.match(/^svc_live_/);
      const r = await gw.admin.call('POST', `/keys/${a.body.id}/revoke`);
      expect(r.status).to.equal(200);
      const noName = await gw.admin.call('POST', `/organizations/${org.id}/keys`);
      expect(noName.status).to.equal(201);
    });

    it('members: POST is 201 {id, email}; ban and unban are 200', async () => {
      const org = await gw.admin.createOrg();
      const m = await gw.admin.call('POST', `/organizations/${org.id}/members`, { email: 'a@example.com' });
      expect(m.status).to.equal(201);
      expect(m.body).to.deep.equal({ id: m.body.id, email: 'a@example.com' });
      expect((await gw.admin.call('POST', `/members/${m.body.id}/ban`)).status).to.equal(200);
      expect((await gw.admin.call('POST', `/members/${m.body.id}/unban`)).status).to.equal(200);
    });

    it('GET …/usage is {month: "YYYY-MM", requests} of this UTC month', async () => {
      const c = await gw.admin.customer();
      await gw.getWithKey(c.key, '/v1/makes');
      await gw.getWithKey(c.key, '/v1/makes');
      const a = await gw.admin.call('GET', `/organizations/${c.org}/usage`);
      const now = new Date();
      expect(a.body).to.deep.equal({ month: `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`, requests: 2 });
    });

    it('PATCH /vehicles/:id {published} hides and shows a vehicle in the catalog', async () => {
      const c = await gw.admin.customer();
      const year = await gw.getWithKey(c.key, '/v1/makes/koruna/models/cargo/2020');
      const id = year.body.vehicle.id;
      expect((await gw.admin.call('PATCH', `/vehicles/${id}`, { published: false })).status).to.equal(200);
      expect((await gw.getWithKey(c.key, '/v1/makes/koruna/models/cargo/2020')).status).to.equal(404);
      expect((await gw.getWithKey(c.key, '/v1/makes/koruna')).status).to.equal(404);
      expect((await gw.admin.call('PATCH', `/vehicles/${id}`, { published: true })).status).to.equal(200);
      expect((await gw.getWithKey(c.key, '/v1/makes/koruna/models/cargo/2020')).status).to.equal(200);
    });

    it('PATCH /vehicles/:id/views/:view {published} makes a view 404 and back', async () => {
      const c = await gw.admin.customer();
      const y = await gw.getWithKey(c.key, '/v1/makes/aurelia/models/terra/2022');
      const id = y.body.vehicle.id;
      expect((await gw.admin.call('PATCH', `/vehicles/${id}/views/rear`, { published: false })).status).to.equal(200);
      expect((await gw.getWithKey(c.key, '/v1/makes/aurelia/models/terra/2022/rear')).status).to.equal(404);
      expect((await gw.getWithKey(c.key, '/v1/makes/aurelia/models/terra/2022')).body.views).not.to.include('rear');
      await gw.admin.call('PATCH', `/vehicles/${id}/views/rear`, { published: true });
      expect((await gw.getWithKey(c.key, '/v1/makes/aurelia/models/terra/2022/rear')).status).to.equal(200);
    });

    it('catalog export then import of the same file changes nothing', async () => {
      const before = await gw.admin.call('GET', '/catalog/export');
      expect(before.body.format).to.equal('vehicle-catalog/v1');
      const imp = await gw.admin.call('POST', '/catalog/import', before.body);
      expect(imp.status).to.equal(200);
      const after = await gw.admin.call('GET', '/catalog/export');
      expect(after.body).to.deep.equal(before.body);
    });
  });

  describe('error', () => {
    it('unknown organisation, key, member, vehicle or view is 404', async () => {
      const checks: Array<[string, string, unknown]> = [
        ['PUT', '/organizations/org_nope/contract', { categories: [], allowed_formats: ['png'], rpm_limit: 1, monthly_quota: 1, active: true }],
        ['POST', '/organizations/org_nope/keys', {}],
        ['POST', '/keys/key_nope/revoke', undefined],
        ['POST', '/organizations/org_nope/members', { email: 'a@b.example' }],
        ['POST', '/members/mem_nope/ban', undefined],
        ['GET', '/organizations/org_nope/usage', undefined],
        ['PATCH', '/vehicles/veh_nope', { published: true }],
        ['PATCH', '/vehicles/veh_nope/views/front', { published: true }],
      ];
      for (const [m, p, b] of checks) {
        const a = await gw.admin.call(m, p, b);
        expect(a.status, `${m} ${p}`).to.equal(404);
        expect(Object.keys(a.body)).to.have.members(['error', 'message']);
      }
    });

    it('invalid bodies are 400 bad_request', async () => {
      const org = await gw.admin.createOrg();
      const bad: Array<[string, string, unknown]> = [
        ['POST', '/organizations', {}],
        ['POST', '/organizations', { name: '' }],
        ['PUT', `/organizations/${org.id}/contract`, { categories: ['nope'], allowed_formats: ['png'], rpm_limit: 1, monthly_quota: 1, active: true }],
        ['PUT', `/organizations/${org.id}/contract`, { categories: [], allowed_formats: ['gif'], rpm_limit: 1, monthly_quota: 1, active: true }],
        ['PUT', `/organizations/${org.id}/contract`, { categories: [], allowed_formats: ['png'], rpm_limit: 0, monthly_quota: 1, active: true }],
        ['PUT', `/organizations/${org.id}/contract`, { categories: [], allowed_formats: ['png'], rpm_limit: 1, monthly_quota: 1 }],
        ['POST', `/organizations/${org.id}/members`, { email: 'not-an-email' }],
        ['PATCH', '/vehicles/veh_x', { published: 'yes' }],
        ['POST', '/catalog/import', { format: 'vehicle-catalog/v1', categories: [], makes: [{ slug: 'Bad Slug', name: 'x', models: [] }] }],
      ];
      for (const [m, p, b] of bad) {
        const a = await gw.admin.call(m, p, b);
        expect(a.status, `${m} ${p} ${JSON.stringify(b)}`).to.equal(400);
        expect(a.body.error).to.equal('bad_request');
      }
    });

    it('a catalog with an unknown asset set is refused whole and writes nothing', async () => {
      const before = await gw.admin.call('GET', '/catalog/export');
      const file = {
        format: 'vehicle-catalog/v1',
        categories: [{ slug: 'suv', name: 'SUV' }],
        makes: [
          { slug: 'newmake', name: 'New make', models: [{ slug: 'm', name: 'M', years: [{ year: 2025, variants: [{ slug: null, name: null, category: 'suv', asset_set: 'synthetic' }] }] }] },
          { slug: 'other', name: 'Other', models: [{ slug: 'm', name: 'M', years: [{ year: 2025, variants: [{ slug: null, name: null, category: 'suv', asset_set: 'no-such-set' }] }] }] },
        ],
      };
      const a = await gw.admin.call('POST', '/catalog/import', file);
      expect(a.status).to.equal(400);
      expect(a.body.message).to.contain('no-such-set');
      expect((await gw.admin.call('GET', '/catalog/export')).body).to.deep.equal(before.body);
    });
  });

  describe('catalog integrity', () => {
    it('a year stored without variants cannot gain named variants (refused whole)', async () => {
      const file = (variants: unknown[]) => ({
        format: 'vehicle-catalog/v1',
        categories: [{ slug: 'suv', name: 'SUV' }],
        makes: [{ slug: 'mixy', name: 'Mixy', models: [{ slug: 'm', name: 'M', years: [{ year: 2025, variants }] }] }],
      });
      const single = { slug: null, name: null, category: 'suv', asset_set: 'synthetic' };
      expect((await gw.admin.call('POST', '/catalog/import', file([single]))).status).to.equal(200);
      const named = [1, 2].map((i) => ({ slug: `v${i}`, name: `V${i}`, category: 'suv', asset_set: 'synthetic' }));
      const a = await gw.admin.call('POST', '/catalog/import', file(named));
      expect(a.status).to.equal(400);
      expect(a.body.message).to.contain('mixy/m/2025');
      const rows = await gw.db.query("SELECT v.id FROM vehicles v JOIN models md ON md.id = v.model_id WHERE md.slug = 'm'");
      expect(rows).to.have.length(1);
    });
  });

  describe('security', () => {
    it('every admin call without the bearer token, or with a wrong one, is 401', async () => {
      for (const [m, p] of [['GET', '/categories'], ['POST', '/organizations'], ['GET', '/organizations/x/usage'], ['PATCH', '/vehicles/x'], ['GET', '/catalog/export']]) {
        const a = await gw.admin.call(m!, p!, m === 'GET' ? undefined : {}, 'wrong-token-wrong-token');
        expect(a.status, `${m} ${p}`).to.equal(401);
        expect(a.body.error).to.equal('unauthorized');
        const b = await fetch(`${gw.url}/admin/v1${p}`, { method: m });
        expect(b.status).to.equal(401);
      }
    });

    it('an API key is not an admin token', async () => {
      const c = await gw.admin.customer();
      const a = await gw.admin.call('GET', '/categories', undefined, c.key);
      expect(a.status).to.equal(401);
    });
  });
});
