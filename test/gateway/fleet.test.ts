import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { createLogger } from '../../shared/logger.ts';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { freePort } from '../support/ports.ts';
import { startRendererProcess } from '../support/renderer-process.ts';

/**
 * Fault tests on loopback: renderers are real processes (`node --import tsx renderer/main.ts`), killed
 * with SIGKILL under a load of cache-miss downloads through one gateway. Bounded: about 20 s.
 */
const SINGLE = '/v1/makes/aurelia/models/vento/2023';

describe('fleet: renderer failover within the deadline (real processes, loopback)', function () {
  this.timeout(240_000);
  const children: ChildProcess[] = [];
  let gw: TestGateway | null = null;
  let client: ReturnType<typeof createGrpcImageRenderer> | null = null;

  afterEach(async () => {
    await gw?.close();
    client?.close();
    gw = null;
    client = null;
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  const setUp = async (addresses: string, opts: { outageWaitMs?: number } = {}) => {
    client = createGrpcImageRenderer({ addresses, logger: createLogger('fleet-client', 'silent'), ...opts });
    // The render deadline is the budget for failover and for a restart (a fresh `node --import tsx`
    // renderer takes over 10 s to start on a loaded 2-core machine): generous, since what these tests
    // check is that no download fails, not how fast the renders are.
    gw = await startTestGateway({ renderer: client, env: { DOWNLOAD_CONCURRENT_RENDERS: '64', DOWNLOAD_RENDERS_PER_MINUTE: '100000', RENDER_TIMEOUT_MS: '60000' } });
    const key = (await gw.admin.customer()).key;
    return async (i: number) => {
      // a distinct colour per download: every one is a cache miss
      const color = (0x100000 + i * 7919).toString(16).slice(-6);
      const a = await gw!.getWithKey(key, `${SINGLE}/front_left?format=png&width=800&color=${color}`);
      expect(a.status, a.text).to.equal(200);
      return (a.body.image_url as string).replace('http://localhost:', 'http://127.0.0.1:');
    };
  };

  const download = async (url: string) => {
    const res = await fetch(url);
    const buf = Buffer.from(await res.arrayBuffer());
    return { status: res.status, bytes: buf.length, length: Number(res.headers.get('content-length')), text: res.status === 200 ? '' : buf.toString() };
  };

  it('two renderers, one SIGKILLed during a load of cache-miss downloads: no download fails', async () => {
    const [p1, p2] = [await freePort(), await freePort()];
    const [r1, r2] = await Promise.all([startRendererProcess(p1), startRendererProcess(p2)]);
    children.push(r1, r2);
    const urlOf = await setUp(`127.0.0.1:${p1},127.0.0.1:${p2}`);
    const N = 36;
    const urls = await Promise.all(Array.from({ length: N }, (_, i) => urlOf(i)));
    const results: { status: number; bytes: number; length: number; text: string }[] = [];
    let nextIdx = 0;
    let killedAt = -1;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (nextIdx < N) {
          const i = nextIdx++;
          if (i === 8) {
            killedAt = results.length;
            r1.kill('SIGKILL'); // renders in flight on r1 fail over to r2
          }
          results.push(await download(urls[i]!));
        }
      }),
    );
    const seconds = (Date.now() - t0) / 1000;
    console.log(`      ${N} cache-miss downloads in ${seconds.toFixed(1)} s, renderer 1 killed after ${killedAt} had finished`);
    const failed = results.filter((r) => r.status !== 200 || r.bytes !== r.length || r.bytes === 0);
    expect(failed, JSON.stringify(failed.slice(0, 3))).to.deep.equal([]);
    expect(results).to.have.length(N);
  });

  it('a renderer that restarts is waited for within the deadline instead of answering 503', async () => {
    const port = await freePort();
    const first = await startRendererProcess(port);
    children.push(first);
    // how long an outage is waited out (RENDERER_OUTAGE_WAIT_MS, 6 s by default) well past this
    // restart: a renderer started from source took 4.7–6.0 s here with the suite around it
    const urlOf = await setUp(`127.0.0.1:${port}`, { outageWaitMs: 30_000 });
    const [warm, url] = [await urlOf(1000), await urlOf(1001)];
    expect((await download(warm)).status).to.equal(200);
    first.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    const pending = download(url); // the renderer is down now
    setTimeout(() => void startRendererProcess(port).then((c) => children.push(c)), 1000);
    const r = await pending;
    console.log(`      download answered ${r.status} after ${Date.now() - t0} ms while the renderer restarted`);
    expect(r.status, r.text).to.equal(200);
    expect(r.bytes).to.equal(r.length);
  });
  it('downloads refused while no renderer can be reached are 503 with Retry-After, not the tenant\'s 429', async () => {
    const port = await freePort();
    const only = await startRendererProcess(port);
    children.push(only);
    client = createGrpcImageRenderer({ addresses: `127.0.0.1:${port}`, logger: createLogger('fleet-client', 'silent'), outageWaitMs: 3000 });
    gw = await startTestGateway({ renderer: client, env: { DOWNLOAD_CONCURRENT_RENDERS: '1', DOWNLOAD_QUEUED_RENDERS: '1', DOWNLOAD_RENDERS_PER_MINUTE: '100000', RENDER_TIMEOUT_MS: '20000' } });
    const key = (await gw.admin.customer()).key;
    const urlOf = async (i: number) => {
      const a = await gw!.getWithKey(key, `${SINGLE}/front_left?format=png&width=400&color=${(0x200000 + i * 7919).toString(16).slice(-6)}`);
      return (a.body.image_url as string).replace('http://localhost:', 'http://127.0.0.1:');
    };
    const urls = await Promise.all([0, 1, 2].map(urlOf));
    only.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const first = download(urls[0]!); // takes the one slot and waits for the renderer (its call fails: every address down)
    for (const t0 = Date.now(); !client.unreachable?.() && Date.now() - t0 < 5000; ) await new Promise((r) => setTimeout(r, 20));
    expect(client.unreachable?.(), 'the client has seen every address fail').to.equal(true);
    const second = download(urls[1]!); // waits in the one queue place
    await new Promise((r) => setTimeout(r, 300));
    const res = await fetch(urls[2]!); // no room: the queue is full of downloads waiting out the outage
    expect(res.status).to.equal(503);
    expect(await res.json()).to.deep.equal({ error: 'unavailable', message: 'The service is temporarily unavailable, retry later' });
    expect(res.headers.get('retry-after')).to.equal('5');
    // the two that waited are answered too once the outage wait is over (503: nothing came back)
    expect([(await first).status, (await second).status]).to.deep.equal([503, 503]);
  });
});
