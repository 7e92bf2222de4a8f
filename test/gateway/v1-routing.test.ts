/**
 * The API's calls skip the root and image routers (app.ts, skipV1Subpaths) and reach the catalog
 * router first: these check that every path those routers serve is still theirs, in any letter case
 * and with a trailing slash, that their methods still get 405, and that the /v1 answers and their
 * headers are what they were.
 */
import { expect } from 'chai';
import { startTestGateway, request, type TestGateway } from './support/gateway-fixture.ts';
import { expectErrorBody } from './support/raw-http.ts';

describe('routing of /v1 calls past the root and image routers', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let key: string;

  before(async () => {
    gw = await startTestGateway();
    key = (await gw.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
  });
  after(async () => {
    await gw?.close();
  });

  for (const p of ['/v1', '/v1/', '/V1', '/v1?x=1', '/v1/?x=1']) {
    it(`GET ${p} is the root route: no key asked, not counted`, async () => {
      const a = await gw.get(p);
      expect(a.status, p).to.equal(200);
      expect(a.body).to.include({ name: 'vehicle-image-service' });
      expect(a.headers.get('ratelimit')).to.equal(null);
    });
  }

  it('POST /docs/openapi.json and PUT /images/x are still 405 with their Allow', async () => {
    const docs = await request(`${gw.url}/docs/openapi.json`, { method: 'POST' });
    expect(docs.status).to.equal(405);
    expect(docs.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    expectErrorBody(docs.text, 'POST /docs/openapi.json');
    const img = await request(`${gw.url}/images/abc.webp`, { method: 'PUT' });
    expect(img.status).to.equal(405);
    expect(img.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
  });

  it('the docs and image routes still answer', async () => {
    expect((await gw.get('/docs/openapi.json')).status).to.equal(200);
    expect((await gw.get('/DOCS/')).status).to.equal(200);
    const img = await gw.get('/images/not-a-token.webp');
    expect(img.status).to.be.within(400, 499);
    expect(img.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
  });

  it('GET /v1/makes and /V1/Makes/ with a key: the list, the limits, Vary and the request id', async () => {
    for (const p of ['/v1/makes', '/V1/Makes/']) {
      const a = await gw.getWithKey(key, p);
      expect(a.status, p).to.equal(200);
      expect(a.body.makes, p).to.be.an('array').that.is.not.empty;
      expect(a.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(a.headers.get('ratelimit')).to.match(/^"minute";r=\d+;t=\d+, "month";r=\d+;t=\d+$/);
      expect(a.headers.get('ratelimit-policy')).to.match(/^"minute";q=1000000;w=60, "month";q=2000000000;w=\d+$/);
      expect(a.headers.get('vary')).to.equal('Origin');
      expect(a.headers.get('x-request-id')).to.match(/^[\w.-]+$/);
    }
  });

  it('the other /v1 routers still answer behind the catalog router, and an unknown /v1 path is a 404', async () => {
    expect((await gw.getWithKey(key, '/v1/colors')).status).to.equal(200);
    expect((await gw.getWithKey(key, '/v1/me')).status).to.equal(200);
    expect((await gw.getWithKey(key, '/v1/search?q=a')).status).to.equal(200);
    const none = await gw.getWithKey(key, '/v1/nothing-here');
    expect(none.status).to.equal(404);
    expectErrorBody(none.text, '/v1/nothing-here');
    const noKey = await gw.get('/v1/makes');
    expect(noKey.status).to.equal(401);
  });
});
