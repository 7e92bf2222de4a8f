/**
 * The renderer's warm-up (renderer/warm-up.ts, RENDER_WARMUP): before its port opens, one view is
 * rendered in every format through the service itself; a failure or an empty catalogue never stops
 * the start, and the warm-up's renders are not counted as customers'.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError } from '../../shared/config-fields.ts';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { layerPath } from '../../shared/asset-format/layer-files.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';
import { WARM_UP_WIDTH, warmUp, warmUpGrpc } from '../../renderer/warm-up.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { TEST_SET, quietLogger, startTestServer, testAssets } from './helpers.ts';

/** A logger whose lines are kept, parsed. */
function capturingLogger() {
  const lines: { msg?: string; level?: number; [k: string]: unknown }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger('renderer', 'info', sink), lines };
}

const histogramCount = async (metrics: import('prom-client').Registry) => {
  const m = await metrics.getSingleMetricAsString('renderer_render_duration_seconds');
  return m
    .split('\n')
    .filter((l) => l.startsWith('renderer_render_duration_seconds_count'))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
};

describe('renderer warm-up', function () {
  this.timeout(60_000);

  describe('happy', () => {
    it('renders one view in every format before the port opens: the same request is then a cache hit, and no customer render is counted', async () => {
      const s = await startTestServer({ warmUp: true });
      try {
        const set = await s.internals.store.getSet(TEST_SET);
        // the warm-up's picture is the first view with a plate and a shadow, at 400 px (the test set is 480 px wide)
        const view = VIEW_IDS.find((v) => set.views[v]?.plateQuad && set.views[v]?.shadow)!;
        expect(s.internals.service.cacheStats().renders.entries, 'webp, png, jpeg and a transparent png').to.equal(4);
        expect(s.internals.store.stats().entries).to.be.greaterThan(0);
        // the loopback call over gRPC after the port opened was a hit, and is not counted either
        expect(await histogramCount(s.metrics)).to.equal(0);
        expect(await s.client.health()).to.equal(true);
        for (const format of ['webp', 'png', 'jpeg'] as const) {
          const r = await s.internals.service.render({ assetSet: TEST_SET, view, color: '#7a8b9c', shadow: true, plate: 'AB 123', format, width: WARM_UP_WIDTH });
          expect(r.cacheHit, format).to.equal(true);
          expect(r.width).to.equal(WARM_UP_WIDTH);
        }
        expect(await histogramCount(s.metrics)).to.equal(3);
      } finally {
        await s.close();
      }
    });

    it('logs what it rendered and how long each took', async () => {
      const { logger, lines } = capturingLogger();
      let internals!: RendererInternals;
      const config = { ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: await testAssets(), RENDER_BACKEND: 'cpu' }), workers: 1 };
      const server = await startRendererServer({ config, logger, onInternals: (i) => (internals = i) });
      try {
        const line = lines.find((l) => l.msg === 'renderer warmed up');
        expect(line, JSON.stringify(lines.map((l) => l.msg))).to.not.equal(undefined);
        expect(line!.set).to.equal(TEST_SET);
        expect(Object.keys(line!.renders as object)).to.deep.equal(['webp', 'png', 'jpeg', 'png-transparent']);
        // it ran before the port opened, then once over gRPC (a cache hit), and only then "renderer listening"
        const grpcLine = lines.findIndex((l) => l.msg === 'renderer warmed up over gRPC');
        expect(grpcLine).to.be.greaterThan(lines.indexOf(line!));
        expect(lines[grpcLine]!.cacheHit).to.equal(true);
        expect(lines.findIndex((l) => l.msg === 'renderer listening')).to.be.greaterThan(grpcLine);
        expect(internals.service.cacheStats().renders.entries).to.equal(4);
      } finally {
        await server.close(2000);
      }
    });

    it('is off with RENDER_WARMUP=false, on by default', () => {
      expect(loadRendererConfig({}).warmUp).to.equal(true);
      expect(loadRendererConfig({ RENDER_WARMUP: 'false' }).warmUp).to.equal(false);
      expect(loadRendererConfig({ RENDER_WARMUP: '' }).warmUp).to.equal(true);
    });
  });

  describe('error', () => {
    it('a set whose layer files are damaged: the warm-up stops with a warning and the renderer serves anyway', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'warmup-broken-'));
      await makeSyntheticSet(path.join(dir, 'broken'), { width: 320, revision: 'b1', views: ['front_left'] });
      // cut short after its header: the set passes its check at start (sizes read from the header), the decode fails
      const base = layerPath(path.join(dir, 'broken'), 'front_left', 'base');
      await fs.writeFile(base, (await fs.readFile(base)).subarray(0, 200));
      const { logger, lines } = capturingLogger();
      const config = { ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: dir, RENDER_BACKEND: 'cpu' }), workers: 1 };
      expect(config.warmUp).to.equal(true);
      const server = await startRendererServer({ config, logger });
      const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
      try {
        const warn = lines.find((l) => l.msg === 'renderer warm-up stopped early; serving anyway');
        expect(warn, JSON.stringify(lines.map((l) => l.msg))).to.not.equal(undefined);
        expect(warn!.set).to.equal('broken');
        expect(lines.some((l) => l.msg === 'renderer listening')).to.equal(true);
        expect(await client.health()).to.equal(true);
      } finally {
        client.close();
        await server.close(2000);
      }
    });

    it('the gRPC side failing (nothing listening) is logged and returns, never throws', async () => {
      const { logger, lines } = capturingLogger();
      const ok = await warmUpGrpc(
        { host: '127.0.0.1', port: 1, request: { assetSet: TEST_SET, view: 'front_left', color: '#7A8B9C', shadow: true, plate: 'AB 123', format: 'png', width: 400 }, logger },
        { budgetMs: 500 },
      );
      expect(ok).to.equal(false);
      expect(lines.some((l) => l.msg === 'renderer warm-up over gRPC failed; serving anyway')).to.equal(true);
    });

    it('no asset set at all: skipped, and the renderer starts', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'warmup-empty-'));
      const { logger, lines } = capturingLogger();
      const server = await startRendererServer({ config: { ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: dir, RENDER_BACKEND: 'cpu' }), workers: 1 }, logger });
      try {
        expect(lines.some((l) => l.msg === 'renderer warm-up skipped: no asset set with a view to render')).to.equal(true);
      } finally {
        await server.close(2000);
      }
    });

    it('its time budget spent: it stops at the deadline instead of holding the start', async () => {
      const s = await startTestServer();
      try {
        const r = await warmUp({ service: s.internals.service, store: s.internals.store, sets: [TEST_SET], logger: quietLogger }, { budgetMs: 0 });
        expect(r.failed).to.equal('deadline_exceeded');
        expect(r.set).to.equal(TEST_SET);
        expect(r.renders).to.deep.equal({});
        expect(s.internals.service.cacheStats().renders.entries).to.equal(0);
      } finally {
        await s.close();
      }
    });
  });

  describe('security', () => {
    it('a value other than true or false is refused at start, not read as on or off', () => {
      for (const v of ['yes', '1', 'TRUE', 'false ']) {
        expect(() => loadRendererConfig({ RENDER_WARMUP: v }), v).to.throw(ConfigError, /RENDER_WARMUP/);
      }
    });

    it('unknown or unreadable sets named to it are passed over, not fatal', async () => {
      const s = await startTestServer();
      try {
        const r = await warmUp({ service: s.internals.service, store: s.internals.store, sets: ['../etc', 'nope', TEST_SET], logger: quietLogger });
        expect(r.set).to.equal(TEST_SET);
        expect(r.failed).to.equal(null);
      } finally {
        await s.close();
      }
    });
  });
});

describe('renderer metrics: a caller that goes away', function () {
  this.timeout(60_000);

  it('is counted as cancelled, not as an UNAVAILABLE error of the renderer', async () => {
    const s = await startTestServer({ workers: 1 });
    try {
      const ask = (i: number, signal?: AbortSignal) =>
        s.client.render({ assetSet: TEST_SET, view: 'front_left', color: `#0000${(16 + i).toString(16)}`, shadow: true, plate: null, format: 'png', width: 480 }, { deadlineMs: 20_000, signal });
      // one running, the rest waiting in the queue; those are cancelled by their callers
      const running = ask(0);
      const controllers = Array.from({ length: 4 }, () => new AbortController());
      const gone = controllers.map((ac, i) =>
        ask(i + 1, ac.signal).then(
          () => 'rendered',
          () => 'cancelled',
        ),
      );
      // cancelled once the renderer holds them (queued behind the running one)
      for (let i = 0; i < 500 && s.internals.queue.queued < 2; i++) await new Promise((r) => setTimeout(r, 2));
      for (const ac of controllers) ac.abort();
      await running;
      const outcomes = await Promise.all(gone);
      const cancelledCalls = outcomes.filter((o) => o === 'cancelled').length;
      expect(cancelledCalls).to.be.greaterThan(0);
      // the server sees each cancellation once its call ends
      let text = '';
      for (let i = 0; i < 100; i++) {
        text = await s.metrics.metrics();
        if (/^renderer_renders_cancelled_total (\d+)/m.exec(text)?.[1] === String(cancelledCalls)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(/^renderer_renders_cancelled_total (\d+)/m.exec(text)?.[1]).to.equal(String(cancelledCalls));
      expect(text).to.not.match(/^renderer_render_errors_total\{code="unavailable"\}/m);
      expect(text).to.match(/renderer_render_duration_seconds_count\{[^}]*outcome="cancelled"[^}]*\} [1-9]/);
    } finally {
      await s.close();
    }
  });
});
