/**
 * npm run bench:render [-- --quick] [-- --encoders] [-- --backends cpu,gl]
 *
 * Per backend and per format at widths 400, 1600 and 2400 (a 2400 px synthetic set): renders per
 * second and p50/p99 latency of cache misses (each a new colour), cache-hit latency over gRPC, the
 * ratio of a full render (miss) to sharp encoding the same output picture alone, and peak RSS.
 * `--encoders` also measures the encoder settings (bytes and ms per setting) behind encode.ts.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { loadRendererConfig, type RenderBackendChoice } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createRendererClient } from '../../shared/render-client.ts';
import type { ImageFormat } from '../../shared/render-options.ts';
import type { ViewId } from '../../shared/views.ts';
import { makeSyntheticSet } from '../../renderer/assets/make-synthetic-set.ts';
import { encodeImage } from '../../renderer/encode/encode.ts';
import type { RenderContext } from '../../renderer/pipeline/context.ts';
import { runPipeline, STEPS } from '../../renderer/pipeline/pipeline.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const backendsArg = args.includes('--backends') ? args[args.indexOf('--backends') + 1]!.split(',') : ['cpu', 'gl'];
const WIDTHS = [400, 1600, 2400];
const FORMATS: ImageFormat[] = ['webp', 'png', 'jpeg'];
const VIEW: ViewId = 'front_left';
const SET = 'bench2400';

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
sampler.unref();

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const f1 = (x: number) => x.toFixed(1);
let colourSeq = 0;
const nextColour = () => `#${((colourSeq++ * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6).toUpperCase()}`;

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'render-bench-'));
  process.stdout.write(`building a 2400 px synthetic set in ${dir} … `);
  await makeSyntheticSet(path.join(dir, SET), { width: 2400, revision: 'b1', lightDepth: 16, views: [VIEW] });
  console.log('done');
  const logger = createLogger('bench', 'warn');
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}`);
  const rows: string[] = [];
  rows.push('| backend | format | width | miss renders/s | miss p50 ms | miss p99 ms | hit p50 ms (gRPC) | hit p99 ms | encode alone p50 ms | full/encode | bytes |');
  rows.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const backend of backendsArg as RenderBackendChoice[]) {
    const config = {
      ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: dir, RENDER_BACKEND: backend, RENDER_CACHE_MB: '1024' }),
    };
    let internals: RendererInternals | null = null;
    let server;
    try {
      server = await startRendererServer({ config, logger, onInternals: (i) => (internals = i) });
    } catch (e) {
      console.log(`backend ${backend}: not available (${(e as Error).message})`);
      continue;
    }
    const it = internals! as RendererInternals;
    console.log(`backend ${backend}: ${it.backend.description}; workers ${config.workers}`);
    const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
    for (const format of FORMATS) {
      for (const width of WIDTHS) {
        const n = quick ? 4 : width <= 400 ? 30 : width <= 1600 ? 16 : 10;
        const base = { assetSet: SET, view: VIEW, shadow: true, plate: 'B MW 1234', format, width };
        // warm: layers at this width, plate raster, code paths
        await it.service.render({ ...base, color: nextColour() });
        // sequential misses: latency
        const lat: number[] = [];
        for (let i = 0; i < n; i++) {
          const t0 = performance.now();
          await it.service.render({ ...base, color: nextColour() });
          lat.push(performance.now() - t0);
        }
        // concurrent misses (as many as workers × 2 in flight): throughput
        const conc = Math.max(2, config.workers * 2);
        const t0 = performance.now();
        let done = 0;
        await Promise.all(
          Array.from({ length: conc }, async () => {
            while (done < n) {
              done++;
              await it.service.render({ ...base, color: nextColour() });
            }
          }),
        );
        const rps = done / ((performance.now() - t0) / 1000);
        // hits over gRPC
        const hitReq = { ...base, color: '#C41E3A' };
        const first = await client.render(hitReq, { deadlineMs: 30_000 });
        let bytes = 0;
        for await (const b of first.body) bytes += b.length;
        const hits: number[] = [];
        for (let i = 0; i < n; i++) {
          const h0 = performance.now();
          const r = await client.render(hitReq, { deadlineMs: 30_000 });
          for await (const _ of r.body) void _;
          hits.push(performance.now() - h0);
        }
        // sharp encoding the same output picture alone
        const ctx: RenderContext = {
          req: { ...base, color: '#C41E3A', plate: base.plate },
          set: await it.store.getSet(SET),
          view: (await it.store.getSet(SET)).views[VIEW]!,
          deadline: { at: Infinity },
          timings: {},
        };
        await runPipeline(ctx, { store: it.store, backend: it.backend }, STEPS.slice(0, 3));
        const enc: number[] = [];
        for (let i = 0; i < n; i++) {
          const e0 = performance.now();
          await encodeImage(ctx.image!, format);
          enc.push(performance.now() - e0);
        }
        const ratio = pct(lat, 50) / pct(enc, 50);
        rows.push(
          `| ${backend} | ${format} | ${width} | ${f1(rps)} | ${f1(pct(lat, 50))} | ${f1(pct(lat, 99))} | ${f1(pct(hits, 50))} | ${f1(pct(hits, 99))} | ${f1(pct(enc, 50))} | ${ratio.toFixed(2)} | ${bytes} |`,
        );
        console.log(rows[rows.length - 1]);
      }
    }
    client.close();
    await server.close();
  }
  console.log('\n' + rows.join('\n'));
  console.log(`\npeak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);

  if (args.includes('--encoders')) await encoders(dir);
  await fs.rm(dir, { recursive: true, force: true });
}

/** Bytes and time of candidate encoder settings on a 1600 px render (docs/performance-renderer.md). */
async function encoders(dir: string) {
  const logger = createLogger('bench', 'warn');
  const config = loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: dir, RENDER_BACKEND: 'cpu' });
  let internals: RendererInternals | null = null;
  const server = await startRendererServer({ config, logger, onInternals: (i) => (internals = i) });
  const it = internals! as RendererInternals;
  const set = await it.store.getSet(SET);
  const ctx: RenderContext = {
    req: { assetSet: SET, view: VIEW, color: '#1E4B8C', shadow: true, plate: 'B MW 1234', format: 'png', width: 1600 },
    set,
    view: set.views[VIEW]!,
    deadline: { at: Infinity },
    timings: {},
  };
  await runPipeline(ctx, { store: it.store, backend: it.backend }, STEPS.slice(0, 3));
  const img = ctx.image!;
  const raw = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const src = () => sharp(raw, { raw: { width: img.width, height: img.height, channels: img.channels } });
  const ref = raw;
  async function measure(name: string, mk: () => Sharp) {
    const times: number[] = [];
    let out: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      out = await mk().toBuffer();
      times.push(performance.now() - t0);
    }
    const dec = await sharp(out).removeAlpha().raw().toBuffer();
    let se = 0;
    for (let i = 0; i < dec.length; i++) se += (dec[i]! - ref[i]!) ** 2;
    const p = se === 0 ? Infinity : 10 * Math.log10((255 * 255) / (se / dec.length));
    console.log(`| ${name} | ${out.length} | ${f1(pct(times, 50))} | ${p === Infinity ? 'lossless' : f1(p)} |`);
  }
  console.log('\n| encoder setting (1600 px) | bytes | ms p50 | PSNR dB |\n| --- | --- | --- | --- |');
  for (const effort of [0, 1, 2, 3, 4, 6]) await measure(`webp q82 effort ${effort}`, () => src().webp({ quality: 82, effort }));
  for (const q of [75, 82, 90]) await measure(`webp q${q} effort 2`, () => src().webp({ quality: q, effort: 2 }));
  for (const level of [1, 3, 6, 9]) await measure(`png level ${level}`, () => src().png({ compressionLevel: level, adaptiveFiltering: false }));
  await measure('png level 6 adaptive', () => src().png({ compressionLevel: 6, adaptiveFiltering: true }));
  for (const q of [80, 86, 92]) await measure(`jpeg q${q}`, () => src().jpeg({ quality: q }));
  await measure('jpeg q86 mozjpeg', () => src().jpeg({ quality: 86, mozjpeg: true }));
  await server.close();
}

await main();
