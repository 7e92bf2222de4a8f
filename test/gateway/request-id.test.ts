import { expect } from 'chai';
import { captureLog } from '../support/log-capture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

/** The gateway's request id travels to the renderer in gRPC metadata and is in the renderer's log line. */
describe('request id from the gateway to the renderer log', function () {
  this.timeout(60_000);
  const log = captureLog();
  let renderer: TestRenderer;
  let gw: TestGateway;

  before(async () => {
    renderer = await startTestRenderer({ logger: log.logger('renderer', 'info') });
    gw = await startTestGateway({ renderer: renderer.client });
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
  });

  it('a download with X-Request-Id: the same id answers the client and is logged by the renderer', async () => {
    const key = (await gw.admin.customer()).key;
    const a = await gw.getWithKey(key, '/v1/makes/aurelia/models/vento/2023/front_left?format=png&width=320&color=%23204060');
    const url = String(a.body.image_url).replace('http://localhost:', 'http://127.0.0.1:');
    const res = await fetch(url, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(res.status).to.equal(200);
    await res.arrayBuffer();
    expect(res.headers.get('x-request-id')).to.equal('trace-abc.123');
    const line = log.entries().find((l) => l.msg === 'render' && l.requestId === 'trace-abc.123');
    expect(line, log.lines.slice(-3).join('')).to.exist;
    expect(line).to.include({ width: 320, hit: false });
    // a generated id travels too
    const res2 = await fetch(url);
    await res2.arrayBuffer();
    const id = res2.headers.get('x-request-id')!;
    expect(log.entries().some((l) => l.msg === 'render' && l.requestId === id)).to.equal(true);
  });
});
