import { expect } from 'chai';
import { Writable } from 'node:stream';
import { loadRendererConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { startRendererServer } from '../../renderer/server.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

/** The gateway's request id travels to the renderer in gRPC metadata and is in the renderer's log line. */
describe('request id from the gateway to the renderer log', function () {
  this.timeout(60_000);
  const lines: Record<string, unknown>[] = [];
  let renderer: Awaited<ReturnType<typeof startRendererServer>>;
  let client: ReturnType<typeof createGrpcImageRenderer>;
  let gw: TestGateway;

  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    });
    renderer = await startRendererServer({
      config: loadRendererConfig({ RENDER_BACKEND: 'cpu', RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDER_WORKERS: '1' }),
      logger: createLogger('renderer', 'info', sink),
    });
    client = createGrpcImageRenderer({ addresses: `127.0.0.1:${renderer.port}`, logger: createLogger('c', 'silent') });
    gw = await startTestGateway({ renderer: client });
  });
  after(async () => {
    await gw?.close();
    client?.close();
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
    const line = lines.find((l) => l.msg === 'render' && l.requestId === 'trace-abc.123');
    expect(line, JSON.stringify(lines.slice(-3))).to.exist;
    expect(line).to.include({ width: 320, hit: false });
    // a generated id travels too
    const res2 = await fetch(url);
    await res2.arrayBuffer();
    const id = res2.headers.get('x-request-id')!;
    expect(lines.some((l) => l.msg === 'render' && l.requestId === id)).to.equal(true);
  });
});
