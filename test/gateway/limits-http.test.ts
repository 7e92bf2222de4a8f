import { expect } from 'chai';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

describe(`limits over HTTP (${backendLabel()})`, () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw?.close();
  });

  describe('happy', () => {
    it('answers carry RateLimit-Policy and RateLimit for the minute and the month', async () => {
      const c = await gw.admin.customer({ rpm_limit: 50, monthly_quota: 1000 });
      const a = await gw.getWithKey(c.key, '/v1/makes');
      expect(a.headers.get('ratelimit-policy')).to.match(/"minute";q=50;w=60, "month";q=1000;w=\d+/);
      expect(a.headers.get('ratelimit')).to.match(/"minute";r=49;t=\d+, "month";r=999;t=\d+/);
    });

    it('every authenticated /v1 call counts, including /v1/me, 4xx answers and unknown paths', async () => {
      const c = await gw.admin.customer();
      await gw.getWithKey(c.key, '/v1/me');
      await gw.getWithKey(c.key, '/v1/colors');
      await gw.getWithKey(c.key, '/v1/search?q=vento');
      await gw.getWithKey(c.key, '/v1/makes/nope'); // 404
      await gw.getWithKey(c.key, '/v1/makes/aurelia/models/vento/2023/front?color=nope'); // 400
      await gw.getWithKey(c.key, '/v1/nothing'); // 404
      await gw.get('/v1'); // root: no key, not counted
      expect((await gw.admin.usage(c.org)).requests).to.equal(6);
      const me = await gw.getWithKey(c.key, '/v1/me');
      expect(me.body.usage.requests).to.equal(7);
    });

    it('downloading image_url is not a /v1 call and is not counted', async () => {
      const c = await gw.admin.customer();
      const a = await gw.getWithKey(c.key, '/v1/makes/aurelia/models/vento/2023/front');
      await fetch(a.body.image_url.replace('localhost', '127.0.0.1'));
      await fetch(a.body.image_url.replace('localhost', '127.0.0.1'));
      expect((await gw.admin.usage(c.org)).requests).to.equal(1);
    });

    it('/v1/me shows the contract limits and usage', async () => {
      const c = await gw.admin.customer({ rpm_limit: 77, monthly_quota: 5000, categories: ['suv'], allowed_formats: ['png'] });
      const a = await gw.getWithKey(c.key, '/v1/me');
      expect(a.body.contract).to.deep.include({ active: true, allowed_formats: ['png'], rpm_limit: 77, monthly_quota: 5000 });
      expect(a.body.contract.categories.map((x: { slug: string }) => x.slug)).to.deep.equal(['suv']);
      expect(a.body.organization.id).to.equal(c.org);
      expect(a.body.key.id).to.equal(c.keyId);
      expect(a.body.usage).to.deep.include({ requests: 1, remaining: 4999 });
      expect(a.body.usage.month).to.match(/^\d{4}-\d{2}$/);
    });
  });

  describe('error', () => {
    it('over the per-minute limit: 429 rate_limited with Retry-After, not counted against the month', async () => {
      const c = await gw.admin.customer({ rpm_limit: 12, monthly_quota: 200 });
      const answers = [];
      for (let i = 0; i < 20; i++) answers.push(await gw.getWithKey(c.key, '/v1/colors'));
      expect(answers.filter((a) => a.status === 200)).to.have.length(12);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).to.have.length(8);
      expect(refused[0]!.body).to.deep.equal({ error: 'rate_limited', message: refused[0]!.body.message });
      // The sliding estimate can need a little more than a minute to decay below the limit (docs/limits.md).
      expect(Number(refused[0]!.headers.get('retry-after'))).to.be.within(1, 120);
      expect(refused[0]!.headers.get('ratelimit')).to.match(/"minute";r=0;/);
      const usage = await gw.admin.usage(c.org);
      expect(usage.requests).to.equal(12);
      expect(200 - usage.requests).to.equal(188);
    });

    it('over the monthly quota: 429 quota_exceeded, the extra request not counted', async () => {
      const c = await gw.admin.customer({ rpm_limit: 1000, monthly_quota: 5 });
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await gw.getWithKey(c.key, '/v1/views')).status);
      expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429, 429, 429]);
      const a = await gw.getWithKey(c.key, '/v1/views');
      expect(a.body.error).to.equal('quota_exceeded');
      expect(Number(a.headers.get('retry-after'))).to.be.greaterThan(0);
      expect((await gw.admin.usage(c.org)).requests).to.equal(5);
    });

    it('200 parallel calls against a monthly quota of 100: exactly 100 succeed and usage is 100', async () => {
      const c = await gw.admin.customer({ rpm_limit: 100_000, monthly_quota: 100 });
      const all = await Promise.all(Array.from({ length: 200 }, () => gw.getWithKey(c.key, '/v1/colors')));
      expect(all.filter((a) => a.status === 200)).to.have.length(100);
      expect(all.filter((a) => a.status === 429 && a.body.error === 'quota_exceeded')).to.have.length(100);
      expect((await gw.admin.usage(c.org)).requests).to.equal(100);
    });

    it('200 parallel calls against 100 requests per minute: exactly 100 succeed', async () => {
      const c = await gw.admin.customer({ rpm_limit: 100, monthly_quota: 100_000 });
      const all = await Promise.all(Array.from({ length: 200 }, () => gw.getWithKey(c.key, '/v1/colors')));
      expect(all.filter((a) => a.status === 200)).to.have.length(100);
      expect(all.filter((a) => a.status === 429 && a.body.error === 'rate_limited')).to.have.length(100);
      expect((await gw.admin.usage(c.org)).requests).to.equal(100);
    });
  });

  describe('security', () => {
    it('requests per minute are per key; the quota is shared by the organisation', async () => {
      const c = await gw.admin.customer({ rpm_limit: 3, monthly_quota: 1000 });
      const k2 = await gw.admin.createKey(c.org);
      for (let i = 0; i < 3; i++) expect((await gw.getWithKey(c.key, '/v1/colors')).status).to.equal(200);
      expect((await gw.getWithKey(c.key, '/v1/colors')).status).to.equal(429);
      expect((await gw.getWithKey(k2.key, '/v1/colors')).status).to.equal(200);
      expect((await gw.admin.usage(c.org)).requests).to.equal(4);
    });

    it('refused keys (401/403) never move a counter', async () => {
      const c = await gw.admin.customer({ active: false });
      for (let i = 0; i < 3; i++) await gw.getWithKey(c.key, '/v1/colors');
      await gw.admin.putContract(c.org, { active: true });
      const a = await gw.getWithKey(c.key, '/v1/colors');
      expect(a.status).to.equal(200);
      expect((await gw.admin.usage(c.org)).requests).to.equal(1);
    });

    it('monthly counts are written through to the database within the flush interval', async () => {
      const c = await gw.admin.customer();
      for (let i = 0; i < 4; i++) await gw.getWithKey(c.key, '/v1/colors');
      await gw.limiter.flush();
      const rows = await gw.db.query<{ requests: number }>('SELECT requests FROM monthly_usage WHERE org_id = $1', [c.org]);
      expect(rows[0]?.requests).to.equal(4);
    });
  });
});
