import { fork } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import sharp from 'sharp';
import { ServiceError } from '../../shared/errors.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';
import { loadRendererConfig } from '../../renderer/config.ts';
import { quietLogger, readAll, renderBytes, req, startTestServer, testAssets } from './helpers.ts';

describe('renderer lifecycle, back-pressure and asset validation', function () {
  // the first case also builds the test asset set: 38 s of a 60 s limit at load 10, so room for load 13+
  this.timeout(180_000);

  it('answers RESOURCE_EXHAUSTED when the render queue is full, and serves the rest', async () => {
    const s = await startTestServer({ workers: 1, queueMax: 1 });
    try {
      const colours = ['#101010', '#202020', '#303030', '#404040'];
      const results = await Promise.allSettled(
        colours.map((color) => renderBytes(s.client, req({ view: 'front', width: 1600, color, format: 'png' }))),
      );
      const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      const ok = results.filter((r) => r.status === 'fulfilled');
      expect(rejected.length).to.be.greaterThan(0);
      for (const r of rejected) {
        expect(r.reason).to.be.instanceOf(ServiceError);
        expect((r.reason as ServiceError).code).to.equal('resource_exhausted');
      }
      expect(ok.length).to.be.at.least(2); // the running one and the queued one
    } finally {
      await s.close();
    }
  });

  it('finishes in-flight renders on close, then reports not serving / unavailable', async () => {
    let internals: RendererInternals | null = null;
    const server = await startRendererServer({
      config: { ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: await testAssets(), RENDER_BACKEND: 'cpu' }), workers: 2 },
      logger: quietLogger,
      onInternals: (i) => (internals = i),
    });
    const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
    const client2 = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
    try {
      const inflight = renderBytes(client, req({ view: 'rear', width: 2400, color: '#777777', format: 'png' }), 60_000);
      // close only once the renderer holds the render: a fixed sleep lost the race on a loaded machine
      // (the call had not even connected, and close() refused it as it should)
      const until = Date.now() + 30_000;
      while (internals!.service.active === 0) {
        if (Date.now() > until) throw new Error('the render never reached the renderer');
        await new Promise((r) => setTimeout(r, 5));
      }
      // a grace far above the render's time on a loaded machine: the claim is that close() waits for it
      await server.close(60_000);
      const done = await inflight;
      expect((await sharp(done.bytes).metadata()).width).to.equal(2400);
      try {
        await client2.render(req(), { deadlineMs: 2000 });
        expect.fail('render after close succeeded');
      } catch (e) {
        expect((e as ServiceError).code).to.be.oneOf(['unavailable', 'deadline_exceeded']);
      }
      expect(await client2.health({ deadlineMs: 500 })).to.equal(false);
    } finally {
      client.close();
      client2.close();
      await server.close(2000);
    }
  });

  it('retries UNAVAILABLE on the next address', async () => {
    const s = await startTestServer();
    try {
      // port 1 on loopback refuses connections
      const c = createRendererClient({ addresses: `127.0.0.1:1,127.0.0.1:${s.port}` });
      for (let i = 0; i < 3; i++) {
        const st = await c.render(req({ width: 300 }), { deadlineMs: 10_000 });
        const { bytes } = await readAll(st);
        expect(bytes.length).to.equal(st.header.byteLength);
      }
      c.close();
    } finally {
      await s.close();
    }
  });

  it('with every address down, waits for a restart only so long, then answers UNAVAILABLE at once, and recovers by itself', async () => {
    const s = await startTestServer();
    const port = s.port;
    await s.close();
    const c = createRendererClient({ addresses: `127.0.0.1:${port}`, outageWaitMs: 400 });
    try {
      // the deadline is far: what ends the calls is the outage bound, and they say unavailable, not deadline_exceeded
      for (let i = 0; i < 3; i++) {
        const t0 = Date.now();
        const e = await c.render(req({ width: 300 }), { deadlineMs: 30_000 }).then(
          () => expect.fail('rendered with no renderer'),
          (err: unknown) => err as ServiceError,
        );
        expect(e.code, `call ${i}`).to.equal('unavailable');
        // not a speed figure: the call ends on the outage bound (0.4 s), not on its 30 s deadline as it used to
        expect(Date.now() - t0, `call ${i}`).to.be.below(10_000);
      }
      // the renderer comes back on the same port: a later call is served without any help
      const back = await startTestServer({ port });
      try {
        let served = false;
        for (let i = 0; i < 40 && !served; i++) {
          served = await c.render(req({ width: 300 }), { deadlineMs: 30_000 }).then(
            async (st) => (await readAll(st)).bytes.length > 0,
            () => false,
          );
          if (!served) await new Promise((r) => setTimeout(r, 100));
        }
        expect(served).to.equal(true);
      } finally {
        await back.close();
      }
    } finally {
      c.close();
    }
  });

  it('refuses an invalid asset set with an error naming the file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'renderer-bad-'));
    const set = path.join(dir, 'broken');
    await makeSyntheticSet(set, { width: 240, views: ['front'] });
    await sharp({ create: { width: 100, height: 50, channels: 3, background: '#000' } })
      .toColourspace('b-w')
      .png()
      .toFile(path.join(set, 'front', 'diffuse.png'));
    try {
      await readSetMeta(set);
      expect.fail('accepted a broken set');
    } catch (e) {
      expect((e as Error).message).to.contain(path.join(set, 'front', 'diffuse.png'));
      expect((e as Error).message).to.contain('100x50');
    }
    await fs.rm(path.join(set, 'front', 'diffuse.png'));
    await expectMessage(readSetMeta(set), 'front/diffuse.png: missing');
    const json = JSON.parse(await fs.readFile(path.join(set, 'set.json'), 'utf8'));
    json.views.bonnet = json.views.front;
    await fs.writeFile(path.join(set, 'set.json'), JSON.stringify(json));
    await expectMessage(readSetMeta(set), 'set.json: views.bonnet: unknown view id');
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('npm run renderer: a forked renderer reports ready with its port and stops on SIGTERM', async () => {
    const main = fileURLToPath(new URL('../../renderer/main.ts', import.meta.url));
    const child = fork(main, [], {
      env: { ...process.env, RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDER_BACKEND: 'cpu', ASSETS_DIR: await testAssets(), LOG_LEVEL: 'warn', RENDER_WORKERS: '1' },
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.on('message', (m: { type?: string; port?: number }) => m.type === 'ready' && resolve(m.port!));
        child.on('exit', (code) => reject(new Error(`renderer exited early with ${code}`)));
      });
      expect(port).to.be.greaterThan(0);
      const c = createRendererClient({ addresses: `127.0.0.1:${port}` });
      expect(await c.health()).to.equal(true);
      c.close();
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

async function expectMessage(p: Promise<unknown>, text: string) {
  try {
    await p;
  } catch (e) {
    expect((e as Error).message).to.contain(text);
    return;
  }
  expect.fail(`expected an error containing ${text}`);
}
