/**
 * npm run bench:render-pieces [-- --format jpeg] [-- --width 400] [-- --n 1500]
 *
 * Where a cache miss's time goes beyond its encode, side by side in one process (a 2400 px synthetic
 * set, view front_left, shadow and plate; cpu backend, layers decoded):
 * - `service`: RenderService.render as the renderer runs it (request check, set lookup, render key,
 *   cache, single flight, queue; without the metrics wrapper), a new colour each time;
 * - `pipeline`: runPipeline over the same steps, without the service around it;
 * - `encode`: encodeImage of the finished picture alone (the floor of the render bench);
 * in random order each round, with CPU (all threads) and wall medians and each over `encode`; and the
 * pipeline's step times inside the service. Then how much slower code runs right after the main thread
 * slept through an encode (the render key's hash after an encode, a second time, and in a hot loop):
 * the cold start every miss pays (docs/performance-renderer.md, "Thirteenth pass").
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import type { ImageFormat } from '../../shared/render-options.ts';
import { normaliseRenderRequest } from '../../shared/render-request.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { outputHeight } from '../../renderer/assets/asset-store.ts';
import { encodeImage, resizeKernel } from '../../renderer/encode/encode.ts';
import type { RenderContext } from '../../renderer/pipeline/context.ts';
import { runPipeline, STEPS } from '../../renderer/pipeline/pipeline.ts';
import { RenderService } from '../../renderer/render-service.ts';
import { SpinGeometry } from '../../renderer/spin/spin-geometry.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const FORMAT = (opt('--format') ?? 'jpeg') as ImageFormat;
const WIDTH = Number(opt('--width') ?? 400);
const N = Number(opt('--n') ?? 1500);
const SET = 'bench2400';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'render-pieces-'));
  await makeSyntheticSet(path.join(dir, SET), { width: 2400, revision: 'b1', lightDepth: 16, views: ['front_left'] });
  const logger = createLogger('bench', 'warn');
  const config = loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: dir, RENDER_BACKEND: 'cpu', RENDER_CACHE_MB: '1024', RENDER_WARMUP: 'false' });
  let internals: RendererInternals | null = null;
  const server = await startRendererServer({ config, logger, onInternals: (i) => (internals = i) });
  const it = internals! as RendererInternals;
  // the service as the renderer builds it, without the metrics wrapper the server puts on its own
  const service = new RenderService({ store: it.store, backend: it.backend, queue: it.queue, renderCacheBytes: 512 * 1024 * 1024, logger, spin: { baker: it.spin, geometry: new SpinGeometry() } });
  const set = await it.store.getSet(SET);
  const view = set.views.front_left!;
  let seq = 0;
  const colour = () => `#${((seq++ * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6).toUpperCase()}`;
  const base = { assetSet: SET, view: 'front_left', shadow: true, plate: 'B MW 1234', format: FORMAT, width: WIDTH };
  const context = (): RenderContext => ({ req: normaliseRenderRequest({ ...base, color: colour() }), set, view, deadline: { at: Infinity }, timings: {} });
  await service.render({ ...base, color: colour() });
  await it.store.tablesBuilt();

  // the floor's picture: a finished output picture at the exact size
  const c0 = context();
  await runPipeline(c0, { store: it.store, backend: it.backend }, STEPS.slice(0, 3));
  const img = c0.image!;
  const height = outputHeight(view, WIDTH);
  const finished = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: img.channels } })
    .resize(WIDTH, height, { kernel: resizeKernel(img.width, WIDTH), fit: 'fill' })
    .raw()
    .toBuffer();
  it.backend.release?.(img);
  const output = { width: WIDTH, height, data: new Uint8Array(finished.buffer, finished.byteOffset, finished.byteLength), channels: 3 as const, alpha: false };

  const kinds: Record<string, () => Promise<unknown>> = {
    service: () => service.render({ ...base, color: colour() }),
    pipeline: () => runPipeline(context(), { store: it.store, backend: it.backend }),
    encode: () => encodeImage(output, FORMAT),
  };
  const names = Object.keys(kinds);
  const cpu: Record<string, number[]> = {};
  const wall: Record<string, number[]> = {};
  for (const k of names) {
    cpu[k] = [];
    wall[k] = [];
    for (let i = 0; i < 30; i++) await kinds[k]!();
  }
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, sharp ${sharp.versions.sharp}; ${FORMAT} ${WIDTH} px, ${N} rounds; load ${load()}`);
  for (let i = 0; i < N; i++) {
    for (const k of [...names].sort(() => Math.random() - 0.5)) {
      const u0 = process.cpuUsage();
      const t0 = performance.now();
      await kinds[k]!();
      wall[k]!.push(performance.now() - t0);
      cpu[k]!.push(cpuMs(process.cpuUsage(u0)));
    }
  }
  console.log('| piece | CPU median ms | ÷ encode | wall median ms | ÷ encode |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const k of names) {
    const c = median(cpu[k]!);
    const w = median(wall[k]!);
    console.log(`| ${k} | ${c.toFixed(3)} | ${(c / median(cpu.encode!)).toFixed(3)} | ${w.toFixed(3)} | ${(w / median(wall.encode!)).toFixed(3)} |`);
  }
  const steps: Record<string, number[]> = {};
  for (let i = 0; i < 200; i++) {
    const c = context();
    await runPipeline(c, { store: it.store, backend: it.backend });
    for (const [s, ms] of Object.entries(c.timings)) (steps[s] ??= []).push(ms);
  }
  console.log(`pipeline steps, wall medians ms: ${Object.entries(steps).map(([s, xs]) => `${s} ${median(xs).toFixed(3)}`).join(', ')}`);

  // the cold start: the same small piece of code right after an encode, again, and hot
  const key = JSON.stringify(['v1', SET, 'b1', 'front_left', '#C41E3A', true, 'B MW 1234', FORMAT, WIDTH, 'studio', 'cpu', 'enc']);
  const hash = () => crypto.hash('sha256', key, 'base64url');
  const first: number[] = [];
  const second: number[] = [];
  const hot: number[] = [];
  for (let i = 0; i < 600; i++) {
    await encodeImage(output, FORMAT);
    let t = performance.now();
    hash();
    first.push(performance.now() - t);
    t = performance.now();
    hash();
    second.push(performance.now() - t);
  }
  for (let i = 0; i < 600; i++) {
    const t = performance.now();
    hash();
    hot.push(performance.now() - t);
  }
  const us = (xs: number[]) => (median(xs) * 1000).toFixed(1);
  console.log(`the render key's sha256, medians: right after an encode ${us(first)} µs, once more ${us(second)} µs, in a hot loop ${us(hot)} µs; load ${load()}`);
  await server.close();
  await fsp.rm(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
