import { expect } from 'chai';
import http from 'node:http';
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
      // the message names what is missing
      expect((await gw.admin.call('PATCH', '/vehicles/veh_nope/views/front', { published: true })).body.message).to.equal('Vehicle not found');
      const [v] = await gw.db.query<{ id: string }>('SELECT id FROM vehicles LIMIT 1');
      expect((await gw.admin.call('PATCH', `/vehicles/${v!.id}/views/bottom`, { published: true })).body.message).to.equal('View not found');
    });

    it('a body that is not JSON (a form, plain text, XML, another charset) is 415, not read as no body; JSON sent as a form or plain text is read', async () => {
      const raw = (p: string, type: string | null, body: string) =>
        fetch(`${gw.url}/admin/v1${p}`, { method: 'POST', headers: { authorization: `Bearer ${gw.adminToken}`, ...(type ? { 'content-type': type } : {}) }, body });
      for (const [p, type, body, message] of [
        ['/organizations', 'text/plain', 'name=x', 'The request body must be JSON (Content-Type: application/json)'],
        ['/organizations', 'application/x-www-form-urlencoded', 'name=x', 'The request body must be JSON (Content-Type: application/json)'],
        ['/organizations', 'application/xml', '<name>x</name>', 'The request body must be JSON (Content-Type: application/json)'],
        ['/organizations', 'multipart/form-data; boundary=x', '--x--', 'The request body must be JSON (Content-Type: application/json)'],
        ['/organizations', 'application/json; charset=utf-16', '{"name":"x"}', 'The request body must be UTF-8 (charset=utf-8)'],
        ['/catalog/import', 'application/xml', '<x/>', 'The request body must be JSON or CSV (Content-Type: application/json or text/csv)'],
      ] as const) {
        const a = await raw(p, type, body);
        expect(a.status, `${p} ${type}`).to.equal(415);
        expect(await a.json(), `${p} ${type}`).to.deep.equal({ error: 'unsupported_media_type', message });
      }
      // what curl -d, a fetch of a string, or no header at all send: JSON is read as JSON
      for (const type of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8', 'application/json; charset=UTF-8']) {
        const ok = await raw('/organizations', type, `{"name":"Lenient ${type}"}`);
        expect(ok.status, type).to.equal(201);
      }
      const node = await new Promise<number>((resolve, reject) => {
        const body = '{"name":"No content type"}';
        const r = http.request(`${gw.url}/admin/v1/organizations`, { method: 'POST', headers: { authorization: `Bearer ${gw.adminToken}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        r.on('error', reject);
        r.end(body);
      });
      expect(node).to.equal(201);
    });

    it('a CSV import of only a header that is not the catalog\'s, or of nothing, is 400 naming the columns; nothing is written', async () => {
      const before = await gw.admin.call('GET', '/catalog/export');
      for (const body of ['bad,csv', 'bad,csv\n', ' ']) {
        const a = await fetch(`${gw.url}/admin/v1/catalog/import`, { method: 'POST', headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'text/csv' }, body });
        expect(a.status, JSON.stringify(body)).to.equal(400);
        const b = (await a.json()) as { error: string; message: string };
        expect(b.error).to.equal('bad_request');
        expect(b.message, JSON.stringify(body)).to.match(/make_slug/);
      }
      expect((await gw.admin.call('GET', '/catalog/export')).body).to.deep.equal(before.body);
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
      // a catalog name holding an escape sequence (catalog names go out in every /v1 answer)
      const variant = { slug: null, name: null, category: 'suv', asset_set: 'synthetic' };
      const file = (name: string) => ({ format: 'vehicle-catalog/v1', categories: [{ slug: 'suv', name: 'SUV' }], makes: [{ slug: 'escmake', name, models: [{ slug: 'm', name: 'M', years: [{ year: 2025, variants: [variant] }] }] }] });
      const esc = await gw.admin.call('POST', '/catalog/import', file('Bad\u001b[31m make'));
      expect(esc.status).to.equal(400);
      expect(esc.body.message).to.contain('makes[0].name: it must not contain control or text-direction characters');
    });

    it('a member email is an address that can receive mail: empty, over 254 characters or 64 before the @ is 400', async () => {
      const org = await gw.admin.createOrg();
      const cases: Array<[string, string]> = [
        ['', 'Invalid email: it must not be empty'],
        ['   ', 'Invalid email: it must not be empty'],
        [`${'a'.repeat(65)}@example.com`, 'Invalid email: its part before the @ must be at most 64 characters'],
        ['a'.repeat(70), 'Invalid email: it is not an email address'],
        [`a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.example`, 'Invalid email: it must be at most 254 characters'],
      ];
      for (const [email, message] of cases) {
        const a = await gw.admin.call('POST', `/organizations/${org.id}/members`, { email });
        expect(a.status, email).to.equal(400);
        expect(a.body.message, email).to.equal(message);
      }
      const ok = await gw.admin.call('POST', `/organizations/${org.id}/members`, { email: `${'a'.repeat(64)}@example.com` });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
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

    it('names with control or text-direction characters are refused (a terminal or a screen would act on them); other Unicode is kept', async () => {
      for (const name of ['a\u0001b', 'k\u0007\u001b[31m', 'a\u0085b', 'evil\u202Etxt.exe', 'x\u2066y', 'lone \ud800 surrogate']) {
        const org = await gw.admin.call('POST', '/organizations', { name });
        expect(org.status, JSON.stringify(name)).to.equal(400);
        expect(org.body.message).to.equal('Invalid name: it must not contain control or text-direction characters');
      }
      const ok = await gw.admin.call('POST', '/organizations', { name: 'Ålesund Bil 🚗 — 東京' });
      expect(ok.status).to.equal(201);
      expect(ok.body.name).to.equal('Ålesund Bil 🚗 — 東京');
      const key = await gw.admin.call('POST', `/organizations/${ok.body.id}/keys`, { name: 'k\u001b[2J' });
      expect(key.status).to.equal(400);
      expect(key.body.message).to.equal('Invalid name: it must not contain control or text-direction characters');
    });

    it('a malformed query is looked at only behind the token: 401 without it, 400 "The request is malformed" with it', async () => {
      for (const p of ['/categories?x=%zz', '/organizations?x=%E0%A4', '/admin-nothing?x=%']) {
        const a = await fetch(`${gw.url}/admin/v1${p}`);
        expect(a.status, p).to.equal(401);
        expect(await a.json()).to.deep.equal({ error: 'unauthorized', message: 'A valid admin bearer token is required' });
      }
      const b = await gw.admin.call('GET', '/categories?x=%zz');
      expect(b.status).to.equal(400);
      expect(b.body).to.deep.equal({ error: 'bad_request', message: 'The request is malformed' });
    });

    it('an API key is not an admin token', async () => {
      const c = await gw.admin.customer();
      const a = await gw.admin.call('GET', '/categories', undefined, c.key);
      expect(a.status).to.equal(401);
    });
  });
});
