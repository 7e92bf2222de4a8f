import { expect } from 'chai';
import { startMetricsServer } from '../../shared/metrics-server.ts';
import { durationBuckets } from '../../gateway/http/metrics.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

describe('gateway metrics', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let key: string;

  before(async () => {
    gw = await startTestGateway({ env: { RENDER_TIMEOUT_MS: '15000' } });
    key = (await gw.admin.customer()).key;
  });
  after(async () => {
    await gw?.close();
  });

  it('are not served on the public port', async () => {
    const a = await gw.get('/metrics');
    expect(a.status).to.equal(404);
    expect(a.body).to.deep.equal({ error: 'not_found', message: 'The requested resource was not found' });
  });

  it('label routes by their template only: no raw paths, no letter-case variants, errors keep /v1', async () => {
    await gw.getWithKey(key, '/v1/colors');
    await gw.getWithKey(key, '/V1/colors');
    await gw.getWithKey(key, '/v1/COLORS');
    await gw.getWithKey(key, '/v1/makes/no-such-make'); // 404 from the route
    await gw.getWithKey(key, '/v1/makes/%00'); // 404 from the parameter check
    await gw.getWithKey(key, '/v1/no/such/path/123'); // unmatched
    await gw.get('/admin/v1/organizations/org_nothere'); // 401 before the route runs
    await gw.admin.call('GET', '/organizations/org_nothere'); // 404 of an admin route
    const server = await startMetricsServer({ registry: gw.metrics, port: 0, host: '127.0.0.1' });
    try {
      const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      const routes = new Set([...text.matchAll(/http_request_duration_seconds_count\{[^}]*route="([^"]*)"/g)].map((m) => m[1]));
      expect([...routes]).to.include.members(['/admin/v1/organizations/:org', '/v1/colors', '/v1/makes/:make', 'unmatched']);
      // the customer() set-up made admin calls; every label is a template (or unmatched), never a raw path
      for (const r of routes) expect(r).to.match(/^(unmatched|(\/v1|\/admin\/v1)(\/([a-z_]+|:[a-z]+))*)$/);
      expect(text).to.contain('http_request_duration_seconds_count{method="GET",route="/v1/colors",status="200"} 3');
      expect(text).to.contain('http_request_duration_seconds_count{method="GET",route="/v1/makes/:make",status="404"} 2');
      expect(text).to.contain('http_request_duration_seconds_count{method="GET",route="/admin/v1/organizations/:org",status="404"} 1');
      expect(text).to.match(/http_request_duration_seconds_bucket\{le="15",method="GET",route="\/v1\/colors",status="200"\} 3/);
      expect(text).not.to.match(/route="[^"]*(no-such|%00|COLORS|V1|123)/);
      // the metrics port answers nothing else
      expect((await fetch(`http://127.0.0.1:${server.port}/v1/colors`)).status).to.equal(404);
    } finally {
      await server.close();
    }
  });

  it('latency buckets reach the render deadline', () => {
    expect(durationBuckets(15_000)).to.include(15).and.include(23);
    expect(durationBuckets(15_000).at(-2)).to.equal(15);
    expect(durationBuckets(30_000)).to.include(30);
    expect(Math.max(...durationBuckets(2_000))).to.equal(3);
  });
});
