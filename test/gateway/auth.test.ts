import { expect } from 'chai';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

const ERROR_KEYS = ['error', 'message'];

describe(`authentication and organisation state (${backendLabel()})`, () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw?.close();
  });

  describe('happy', () => {
    it('a valid key of an organisation with an active contract is served', async () => {
      const c = await gw.admin.customer();
      const a = await gw.getWithKey(c.key, '/v1/makes');
      expect(a.status).to.equal(200);
      expect(a.body.makes).to.be.an('array').that.is.not.empty;
    });

    it('GET /v1 needs no key and names the service, a semantic version and the docs path', async () => {
      const a = await gw.get('/v1');
      expect(a.status).to.equal(200);
      expect(a.body.name).to.be.a('string').that.is.not.empty;
      expect(a.body.version).to.match(/^\d+\.\d+\.\d+(?:-[\w.]+)?$/);
      expect(a.body.docs).to.match(/^\//);
      const docs = await gw.get(a.body.docs);
      expect(docs.status).to.equal(200);
      expect(docs.body.openapi).to.match(/^3\.1/);
    });
  });

  describe('error', () => {
    it('a missing x-api-key is 401 unauthorized saying the header is missing', async () => {
      const a = await gw.get('/v1/makes');
      expect(a.status).to.equal(401);
      expect(Object.keys(a.body)).to.have.members(ERROR_KEYS);
      expect(a.body.error).to.equal('unauthorized');
      expect(a.body.message).to.match(/x-api-key/);
      expect(a.body.message).to.match(/missing/i);
    });

    for (const [what, key] of [
      ['a made-up key', 'svc_live_thisisnotarealkeyatall1234567'],
      ['a key without the prefix', 'abc'],
      ['an empty key', ''],
    ] as const) {
      it(`${what} is 401 unauthorized`, async () => {
        const a = await gw.getWithKey(key, '/v1/makes');
        expect(a.status).to.equal(401);
        expect(a.body).to.deep.equal({ error: 'unauthorized', message: a.body.message });
      });
    }

    it('a well-formed key that was never issued is 401 (checksum valid, not in the database)', async () => {
      const c = await gw.admin.customer();
      // Flip one character of the body and fix nothing: the checksum refuses it before any lookup.
      const mangled = c.key.slice(0, 12) + (c.key[12] === 'a' ? 'b' : 'a') + c.key.slice(13);
      expect((await gw.getWithKey(mangled, '/v1/makes')).status).to.equal(401);
    });

    it('a revoked key is 401 at once on the instance that revoked it', async () => {
      const c = await gw.admin.customer();
      expect((await gw.getWithKey(c.key, '/v1/makes')).status).to.equal(200);
      await gw.admin.revokeKey(c.keyId);
      const a = await gw.getWithKey(c.key, '/v1/makes');
      expect(a.status).to.equal(401);
      expect(a.body.error).to.equal('unauthorized');
    });

    it('no contract is 403 "No active contract for this key" and is not billed', async () => {
      const org = await gw.admin.createOrg();
      const k = await gw.admin.createKey(org.id);
      const a = await gw.getWithKey(k.key, '/v1/makes');
      expect(a.status).to.equal(403);
      expect(a.body).to.deep.equal({ error: 'forbidden', message: 'No active contract for this key' });
      expect((await gw.admin.usage(org.id)).requests).to.equal(0);
    });

    it('an inactive contract is 403 "No active contract for this key" and is not billed', async () => {
      const c = await gw.admin.customer({ active: false });
      const a = await gw.getWithKey(c.key, '/v1/me');
      expect(a.status).to.equal(403);
      expect(a.body).to.deep.equal({ error: 'forbidden', message: 'No active contract for this key' });
      expect((await gw.admin.usage(c.org)).requests).to.equal(0);
    });

    it('a banned member blocks every key of the organisation with 403 "Organization access is disabled", unbilled', async () => {
      const c = await gw.admin.customer();
      const second = await gw.admin.createKey(c.org, 'second');
      const m = await gw.admin.addMember(c.org, 'someone@example.com');
      expect((await gw.getWithKey(c.key, '/v1/me')).status).to.equal(200);
      const before = (await gw.admin.usage(c.org)).requests;
      await gw.admin.ban(m.id);
      for (const key of [c.key, second.key]) {
        const a = await gw.getWithKey(key, '/v1/makes');
        expect(a.status).to.equal(403);
        expect(a.body).to.deep.equal({ error: 'forbidden', message: 'Organization access is disabled' });
      }
      expect((await gw.admin.usage(c.org)).requests).to.equal(before);
      await gw.admin.unban(m.id);
      expect((await gw.getWithKey(c.key, '/v1/makes')).status).to.equal(200);
    });

    it('the ban is checked before the contract (a banned org without a contract answers the ban)', async () => {
      const org = await gw.admin.createOrg();
      const k = await gw.admin.createKey(org.id);
      const m = await gw.admin.addMember(org.id, 'x@example.com');
      await gw.admin.ban(m.id);
      const a = await gw.getWithKey(k.key, '/v1/makes');
      expect(a.body.message).to.equal('Organization access is disabled');
    });

    it('a revoked key is refused before the ban (401 over 403)', async () => {
      const c = await gw.admin.customer();
      const m = await gw.admin.addMember(c.org, 'y@example.com');
      await gw.admin.ban(m.id);
      await gw.admin.revokeKey(c.keyId);
      expect((await gw.getWithKey(c.key, '/v1/makes')).status).to.equal(401);
    });
  });

  describe('security', () => {
    it('keys are shown once and only a hash is stored', async () => {
      const c = await gw.admin.customer();
      const rows = await gw.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [c.keyId]);
      expect(rows).to.have.length(1);
      expect(JSON.stringify(rows[0])).not.to.contain(c.key.slice(15));
      expect(rows[0]!.key_hash).to.match(/^[0-9a-f]{64}$/);
      const org = await gw.admin.call('GET', `/organizations/${c.org}`);
      expect(org.text).not.to.contain(c.key);
    });

    it('keys have the svc_live_ prefix and at least 128 random bits', async () => {
      const c = await gw.admin.customer();
      expect(c.key).to.match(/^svc_live_[0-9A-Za-z]{30}$/);
    });

    it('the x-api-key never appears in an error message', async () => {
      const c = await gw.admin.customer();
      await gw.admin.revokeKey(c.keyId);
      const a = await gw.getWithKey(c.key, '/v1/makes');
      expect(a.text).not.to.contain(c.key);
    });
  });
});
