/**
 * npm run bench:render [-- --quick] [-- --encoders] [-- --backends cpu,gl] [-- --formats webp,png]
 *                      [-- --widths 400,1600] [-- --set sedan-a] [-- --soak SECONDS [--cache-mb N]]
 *                      [-- --cold [--rounds N]] [-- --first [--rounds N]]
 *
 * Per backend and per format at widths 400, 1600 and 2400 (a 2400 px synthetic set, view front_left,
 * shadow and plate on): the latency of cache misses (each a new colour; the layers at that width
 * already decoded), measured side by side with the floor, sharp encoding the finished output picture
 * (exact output size, already resized) alone with the same encoder settings: one miss, one encode,
 * alternately, so the machine's load falls on both alike. Also the pipeline's own step times
 * (composite, including the gl readback; encode, including the one resize), renders per second with
 * concurrent misses, cache-hit latency over gRPC, and peak RSS.
 * `--backends gl` prints the GL renderer string and times the gl composite of a 2400 px picture,
 * readback included, apart from the encode (docs/performance-renderer.md, "GPU").
 * `--backends cpu` times the kernel alone on the 2400 px level, one thread: the JavaScript reference
 * (kernel.ts) and the WebAssembly kernel the backend runs (wasm-kernel.ts), alternately, with the
 * largest byte difference between them (docs/performance-renderer.md), and the cold levels: a new
 * asset store building the view's 2400, 1600, 800 and 400 px levels, with the longest event-loop delay
 * meanwhile.
 * `--encoders` also measures the encoder settings (bytes and ms per setting) behind encode.ts.
 * `--first`: renderer processes (renderer/main.ts, as it runs) started on a level directory a first
 * one filled, alternately with RENDER_WARMUP=false and true: the time from start to ready, then four
 * first renders in a row over gRPC (docs/performance-renderer.md, "Eleventh pass").
 * `--soak S`: a forked renderer (cpu, RENDER_CACHE_MB from --cache-mb, default 256) under S seconds of
 * random sets, views, widths, colours, formats, shadow and plates; prints its RSS at start, end and peak
 * against the cache budget (docs/renderer.md, "Memory").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import { loadRendererConfig } from '../../renderer/config.ts';
import { type RenderBackendChoice } from '../../shared/config-fields.ts';
import { createLogger } from '../../shared/logger.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import type { ImageFormat } from '../../shared/render-options.ts';
import { VIEW_IDS, type ViewId } from '../../shared/views.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { AssetStore, outputHeight } from '../../renderer/assets/asset-store.ts';
import { kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { compositeKernel } from '../support/reference-kernel.ts';
import { WasmKernel } from '../../renderer/backends/cpu/wasm-kernel.ts';
import { hexToLinear } from '../../shared/color/srgb.ts';
import type { RenderContext } from '../../renderer/pipeline/context.ts';
import { runPipeline, STEPS } from '../../renderer/pipeline/pipeline.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';
import { encodeFloor } from './support/encode-floor.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const quick = args.includes('--quick');
const backendsArg = (opt('--backends') ?? 'cpu,gl').split(',');
const WIDTHS = (opt('--widths') ?? '400,1600,2400').split(',').map(Number);
const FORMATS = (opt('--formats') ?? 'webp,png,jpeg').split(',') as ImageFormat[];
const VIEW: ViewId = 'front_left';
/** `--set ID`: a committed set of assets/ (baked, 8-bit light) instead of the synthetic one (16-bit light: its lightings hardly repeat, so the level palettes help it least). */
const SET = opt('--set') ?? 'bench2400';
const COMMITTED = opt('--set') !== undefined;

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
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  if (opt('--soak')) return soak(Number(opt('--soak')), Number(opt('--cache-mb') ?? 256));
  if (args.includes('--cold')) return coldRenders();
  if (args.includes('--first')) return firstRenders();
  const dir = COMMITTED ? path.join(ROOT, 'assets') : await fsp.mkdtemp(path.join(os.tmpdir(), 'render-bench-'));
  if (COMMITTED) console.log(`set ${SET} of ${dir}`);
  else {
    process.stdout.write(`building a 2400 px synthetic set in ${dir} … `);
    await makeSyntheticSet(path.join(dir, SET), { width: 2400, revision: 'b1', lightDepth: 16, views: [VIEW] });
    console.log('done');
  }
  const logger = createLogger('bench', 'warn');
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}; load ${load()}`);
  const rows: string[] = [];
  rows.push(
    '| backend | format | width | encode alone p50 ms | miss p50 ms | miss/encode | miss p99 ms | CPU ms: encode alone / miss (ratio) | composite p50 ms | encode+resize p50 ms | miss renders/s | hit p50 ms (gRPC) | bytes |',
  );
  rows.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
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
    const set = await it.store.getSet(SET);
    const view = set.views[VIEW]!;
    const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
    if (backend === 'gl') await glCompositeTiming(it, set);
    if (backend === 'cpu') {
      await cpuKernelTiming(it, set);
      await coldLevels(dir, logger);
    }
    for (const format of FORMATS) {
      for (const width of WIDTHS) {
        // at 400 px a miss is 2–5 ms and 0.1 ms decides the ratio: many samples
        const n = quick ? 6 : width <= 400 ? 200 : width <= 1600 ? 24 : 16;
        const base = { assetSet: SET, view: VIEW, shadow: true, plate: 'B MW 1234', format, width };
        // warm: layers at this width (and their palette, built after them), plate raster, code paths
        await it.service.render({ ...base, color: nextColour() });
        await it.store.tablesBuilt();
        // the floor: the finished output picture (already at its exact size), encoded alone
        const floor = await encodeFloor(it, set, view, { ...base, color: '#C41E3A' });
        // misses and encodes, alternately
        // (wall time, and the CPU time of the whole process: main thread, workers and libvips threads,
        // which a loaded machine stretches far less than wall time)
        const lat: number[] = [];
        const enc: number[] = [];
        const latCpu: number[] = [];
        const encCpu: number[] = [];
        const miss = async () => {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await it.service.render({ ...base, color: nextColour() });
          lat.push(performance.now() - t0);
          latCpu.push(cpuMs(process.cpuUsage(c0)));
        };
        const encode = async () => {
          const c0 = process.cpuUsage();
          const e0 = performance.now();
          await floor.encode();
          enc.push(performance.now() - e0);
          encCpu.push(cpuMs(process.cpuUsage(c0)));
        };
        // which goes first alternates: what ran just before shifts a 400 px miss by 0.1 ms
        for (let i = 0; i < n; i++) {
          if (i % 2 === 0) {
            await miss();
            await encode();
          } else {
            await encode();
            await miss();
          }
        }
        // the pipeline's step times
        const comp: number[] = [];
        const encStep: number[] = [];
        for (let i = 0; i < Math.max(4, n >> 1); i++) {
          const c: RenderContext = { req: { ...base, color: nextColour() }, set, view, deadline: { at: Infinity }, timings: {} };
          await runPipeline(c, { store: it.store, backend: it.backend });
          comp.push(c.timings.composite!);
          encStep.push(c.timings.encode!);
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
        const ratio = pct(lat, 50) / pct(enc, 50);
        rows.push(
          `| ${backend} | ${format} | ${width} | ${f1(pct(enc, 50))} | ${f1(pct(lat, 50))} | **${ratio.toFixed(2)}** | ${f1(pct(lat, 99))} | ${f1(pct(encCpu, 50))} / ${f1(pct(latCpu, 50))} (${(pct(latCpu, 50) / pct(encCpu, 50)).toFixed(2)}) | ${f1(pct(comp, 50))} | ${f1(pct(encStep, 50))} | ${f1(rps)} | ${f1(pct(hits, 50))} | ${bytes} |`,
        );
        console.log(rows[rows.length - 1]);
      }
    }
    client.close();
    await server.close();
  }
  console.log('\n' + rows.join('\n'));
  console.log(`\npeak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MiB; load ${load()}`);

  if (args.includes('--encoders')) await encoders(dir);
  if (!COMMITTED) await fsp.rm(dir, { recursive: true, force: true });
}

/** The gl backend's composite of a 2400 px picture, readback included, apart from any encode. */
async function glCompositeTiming(it: RendererInternals, set: Awaited<ReturnType<RendererInternals['store']['getSet']>>) {
  const view = set.views[VIEW]!;
  const times: number[] = [];
  for (let i = 0; i < (quick ? 8 : 30); i++) {
    const ctx: RenderContext = {
      req: { assetSet: SET, view: VIEW, color: nextColour(), shadow: true, plate: 'B MW 1234', format: 'png', width: 2400 },
      set,
      view,
      deadline: { at: Infinity },
      timings: {},
    };
    await runPipeline(ctx, { store: it.store, backend: it.backend }, STEPS.slice(0, 3));
    if (i > 0) times.push(ctx.timings.composite!); // the first uploads the layers as textures
  }
  console.log(`GL renderer: ${it.backend.description}`);
  console.log(`gl composite 2400×${view.height} incl. readback: p50 ${f1(pct(times, 50))} ms, p99 ${f1(pct(times, 99))} ms, min ${f1(Math.min(...times))} ms (${times.length} pictures)`);
}

/**
 * Cold levels: a new asset store (as the cpu backend's) builds the view's levels for 2400, 1600, 800
 * and 400 px, each from the one it comes from (already cached), while the event loop's delay is
 * monitored: the build time and the longest the loop waited (assets/paced.ts builds them in slices).
 */
async function coldLevels(dir: string, logger: ReturnType<typeof createLogger>) {
  const store = new AssetStore({ dir, cacheBytes: 1024 * 1024 * 1024, logger, levelExtras: CPU_LEVEL_EXTRAS });
  await store.init();
  const set = await store.getSet(SET);
  const parts: string[] = [];
  for (const width of [2400, 1600, 800, 400]) {
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const t0 = performance.now();
    await store.levelFor(set, VIEW, width);
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5)); // the last sample
    h.disable();
    parts.push(`${width} px ${f1(ms)} ms (longest event-loop delay ${f1(h.max / 1e6)} ms)`);
  }
  const t0 = performance.now();
  await store.tablesBuilt();
  const pal = (await Promise.all([2400, 1600, 800, 400].map((w) => store.levelFor(set, VIEW, w)))).map((l) => `${l.width} px ${l.arena?.palette ? `${l.arena.palette.size} lightings` : 'none'}`);
  console.log(`cold levels, each from the cached one above it: ${parts.join(', ')}; their palettes (built afterwards, paced) done ${f1(performance.now() - t0)} ms later: ${pal.join(', ')}; load ${load()}`);
}

/**
 * The cpu kernel alone on the 2400 px level, one thread, CPU time, alternately: the JavaScript
 * reference, the wasm kernel into a buffer of its own (spans copied out of a scratch row), and the wasm
 * kernel in place into the layers' own output picture with the level's palette (when it has one):
 * what the backend runs for a render that has the layers' output.
 */
async function cpuKernelTiming(it: RendererInternals, set: Awaited<ReturnType<RendererInternals['store']['getSet']>>) {
  const view = set.views[VIEW]!;
  const ctx: RenderContext = {
    req: { assetSet: SET, view: VIEW, color: '#1E4B8C', shadow: true, plate: 'B MW 1234', format: 'png', width: 2400 },
    set,
    view,
    deadline: { at: Infinity },
    timings: {},
  };
  await runPipeline(ctx, { store: it.store, backend: it.backend }, STEPS.slice(0, 2));
  await it.store.tablesBuilt(); // the palette is the arena's, so these layers have it too
  const layers = ctx.layers!;
  const wasm = new WasmKernel();
  const a = new Uint8Array(layers.width * layers.height * 3);
  const b = new Uint8Array(layers.width * layers.height * 3);
  const own = layers.arena?.output ?? null;
  const js: number[] = [];
  const wa: number[] = [];
  const wp: number[] = [];
  let maxDiff = 0;
  let maxDiffOwn = 0;
  for (let i = 0; i < (quick ? 6 : 24); i++) {
    const job = {
      layers,
      color: hexToLinear(nextColour()),
      neutral: set.neutral,
      calibration: view.calibration,
      shadow: view.shadow,
      plate: ctx.plate ?? null,
      transparent: null,
    };
    let c0 = process.cpuUsage();
    compositeKernel(kernelInput(job, a));
    js.push(cpuMs(process.cpuUsage(c0)));
    c0 = process.cpuUsage();
    wasm.compositeRows(kernelInput(job, b), 0, layers.height);
    wa.push(cpuMs(process.cpuUsage(c0)));
    for (let j = 0; j < a.length; j++) maxDiff = Math.max(maxDiff, Math.abs(a[j]! - b[j]!));
    if (own !== null) {
      c0 = process.cpuUsage();
      const k = kernelInput(job, own);
      if (layers.arena?.palette) wasm.paletteColours(k, layers.arena.palette.colours[0]!);
      wasm.compositeRows(k, 0, layers.height);
      wp.push(cpuMs(process.cpuUsage(c0)));
      for (let j = 0; j < a.length; j++) maxDiffOwn = Math.max(maxDiffOwn, Math.abs(a[j]! - own[j]!));
    }
  }
  const pal = layers.arena?.palette ?? null;
  const inPlace =
    own === null
      ? ''
      : `, wasm in place ${pal ? `with the level's palette (${pal.size} lightings for ${pal.index.length} fully painted pixels)` : '(no palette)'} ${f1(pct(wp, 50))} ms (${(pct(js, 50) / pct(wp, 50)).toFixed(2)}×)`;
  console.log(
    `cpu kernel alone, ${layers.width}×${layers.height} level, one thread, CPU p50: JavaScript ${f1(pct(js, 50))} ms, wasm ${f1(pct(wa, 50))} ms ` +
      `(${(pct(js, 50) / pct(wa, 50)).toFixed(2)}×)${inPlace}; largest difference ${Math.max(maxDiff, maxDiffOwn)} code values; load ${load()}`,
  );
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
  const raw = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), {
    raw: { width: img.width, height: img.height, channels: img.channels },
  })
    .resize(1600, outputHeight(ctx.view, 1600), { kernel: 'lanczos3', fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const src = () => sharp(raw.data, { raw: { width: raw.info.width, height: raw.info.height, channels: 3 } });
  const ref = raw.data;
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

/**
 * `--cold`'s cases, on the committed asset sets (assets/): the first render of a view at a width (its
 * levels decoded and reduced on the way, or read from level files) and then the same picture in
 * another colour (the levels in memory); webp, shadow and plate on (docs/performance-renderer.md,
 * "Cold renders").
 */
const COLD_CASES: [string, ViewId, number][] = [
  ['sedan-a', 'front_left', 400],
  ['suv-a', 'side_left', 1600],
  ['estate-a', 'front', 2400],
  ['hatchback-a', 'rear', 800],
  ['pickup-a', 'front_right', 600],
];

/** A new renderer (levels built, or read from `levelFiles`), warmed on a set not measured, then each cold case: its first render and the next colour's. */
async function coldRound(levelFiles: { dir: string; bytes: number } | null): Promise<{ cold: number; next: number }[]> {
  const config = {
    ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: path.join(ROOT, 'assets'), RENDER_BACKEND: 'cpu' }),
    levelFiles,
  };
  let internals: RendererInternals | null = null;
  const server = await startRendererServer({ config, logger: createLogger('bench', 'warn'), onInternals: (i) => (internals = i) });
  const it = internals! as RendererInternals;
  // warm the process (code paths, workers) on a set not measured below
  await it.service.render({ assetSet: 'synthetic', view: 'front', color: '#808080', shadow: true, plate: 'AB 123', format: 'webp', width: 400 });
  const out: { cold: number; next: number }[] = [];
  for (const [assetSet, view, width] of COLD_CASES) {
    const req = { assetSet, view, shadow: true, plate: 'AB 123', format: 'webp' as const, width };
    const t0 = performance.now();
    await it.service.render({ ...req, color: '#C41E3A' });
    const cold = performance.now() - t0;
    const t1 = performance.now();
    await it.service.render({ ...req, color: '#1E4BC4' });
    out.push({ cold, next: performance.now() - t1 });
  }
  await it.levelFiles?.idle();
  await server.close();
  return out;
}

/**
 * `--cold [--rounds N]`: the cold cases in new renderers, alternately without level files (every
 * level decoded from the set's files and reduced) and with LEVEL_CACHE_DIR holding the levels a first
 * renderer wrote (read back; the files in the OS page cache, as on a machine that just wrote them).
 */
async function coldRenders() {
  const rounds = Number(opt('--rounds') ?? 2);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'render-bench-levels-'));
  const levelFiles = { dir, bytes: 8 * 1024 * 1024 * 1024 };
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; cpu backend; load ${load()}`);
  await coldRound(levelFiles); // writes the cases' levels
  const built: { cold: number; next: number }[][] = [];
  const read: { cold: number; next: number }[][] = [];
  for (let r = 0; r < rounds; r++) {
    built.push(await coldRound(null));
    read.push(await coldRound(levelFiles));
  }
  console.log('| case | cold, levels built (ms) | cold, levels from files (ms) | next colour (ms) |');
  console.log('| --- | --- | --- | --- |');
  COLD_CASES.forEach(([assetSet, view, width], i) => {
    const b = built.map((x) => f1(x[i]!.cold)).join(' / ');
    const f = read.map((x) => f1(x[i]!.cold)).join(' / ');
    const n = [...built, ...read].map((x) => f1(x[i]!.next)).join(' / ');
    console.log(`| ${assetSet} ${view} ${width} px | ${b} | ${f} | ${n} |`);
  });
  console.log(`load ${load()}`);
  await fsp.rm(dir, { recursive: true, force: true });
}

/**
 * A renderer process as it runs (renderer/main.ts under tsx; cpu backend, gRPC and metrics on
 * loopback port 0 unless `env` says otherwise), once it has said it is ready over IPC.
 */
async function spawnRenderer(env: Record<string, string>): Promise<{ child: ChildProcess; port: number; metricsPort: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'renderer', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDER_BACKEND: 'cpu', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port, metricsPort } = await new Promise<{ port: number; metricsPort: number }>((resolve, reject) => {
    child.on('message', (m: { type?: string; port?: number; metricsPort?: number }) => m.type === 'ready' && resolve({ port: m.port!, metricsPort: m.metricsPort! }));
    child.on('exit', (code) => reject(new Error(`renderer exited (${code})`)));
  });
  return { child, port, metricsPort };
}

/** Four first renders after a start: sets, views, widths and formats a new renderer has not rendered yet. */
const FIRST_CASES: [string, ViewId, number, ImageFormat][] = [
  ['sedan-a', 'front_left', 400, 'webp'],
  ['suv-a', 'side_left', 800, 'jpeg'],
  ['van-a', 'front', 600, 'png'],
  ['sedan-a', 'rear', 1600, 'webp'],
];

/** One renderer process: ms from spawn to ready, then each FIRST_CASES render's ms (new colour, shadow and plate). */
async function firstRound(levelDir: string, warmUp: boolean): Promise<{ ready: number; renders: number[] }> {
  const t0 = performance.now();
  const { child, port } = await spawnRenderer({
    RENDERER_METRICS_PORT: 'off',
    RENDER_CACHE_MB: '1024',
    LEVEL_CACHE_DIR: levelDir,
    RENDER_WARMUP: String(warmUp),
  });
  const ready = performance.now() - t0;
  const client = createRendererClient({ addresses: `127.0.0.1:${port}` });
  const renders: number[] = [];
  for (const [assetSet, view, width, format] of FIRST_CASES) {
    const t = performance.now();
    const s = await client.render({ assetSet, view, width, format, color: nextColour(), shadow: true, plate: 'B MW 1234' }, { deadlineMs: 60_000 });
    for await (const _ of s.body) void _;
    renders.push(performance.now() - t);
  }
  client.close();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM'); // level files still being written are finished before it exits
  await exited;
  return { ready, renders };
}

async function firstRenders() {
  const rounds = Number(opt('--rounds') ?? 4);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'render-bench-first-'));
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; cpu backend; load ${load()}`);
  await firstRound(dir, true); // fills the level directory (the warm-up's view and the cases')
  const off: Awaited<ReturnType<typeof firstRound>>[] = [];
  const on: Awaited<ReturnType<typeof firstRound>>[] = [];
  for (let r = 0; r < rounds; r++) {
    // which goes first alternates: the page cache and the machine's load fall on both alike
    if (r % 2 === 0) {
      off.push(await firstRound(dir, false));
      on.push(await firstRound(dir, true));
    } else {
      on.push(await firstRound(dir, true));
      off.push(await firstRound(dir, false));
    }
  }
  const col = (xs: number[]) => [...xs].sort((a, b) => a - b).map(f1).join(' / ');
  console.log('| first renders after a start (ms, sorted) | RENDER_WARMUP=false | RENDER_WARMUP=true |');
  console.log('| --- | --- | --- |');
  console.log(`| spawn to ready | ${col(off.map((x) => x.ready))} | ${col(on.map((x) => x.ready))} |`);
  FIRST_CASES.forEach(([assetSet, view, width, format], i) => {
    console.log(`| ${assetSet} ${view} ${width} px ${format} | ${col(off.map((x) => x.renders[i]!))} | ${col(on.map((x) => x.renders[i]!))} |`);
  });
  console.log(`load ${load()}`);
  await fsp.rm(dir, { recursive: true, force: true });
}

/**
 * A forked renderer (its own process, so its RSS is the renderer's alone) under random requests for
 * `seconds`, four in flight; RSS sampled every 100 ms from /proc.
 */
async function soak(seconds: number, cacheMb: number) {
  const assetsDir = path.join(ROOT, 'assets');
  const sets = fs
    .readdirSync(assetsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(assetsDir, d.name, 'set.json')))
    .map((d) => d.name);
  const { child, port, metricsPort } = await spawnRenderer({
    RENDERER_METRICS_PORT: '0',
    RENDERER_METRICS_HOST: '127.0.0.1',
    RENDER_CACHE_MB: String(cacheMb),
    ...(process.env.RENDER_WORKERS ? { RENDER_WORKERS: process.env.RENDER_WORKERS } : {}),
    ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
    // the soak with level files: LEVEL_CACHE_DIR=… npm run bench:render -- --soak 60
    ...(process.env.LEVEL_CACHE_DIR ? { LEVEL_CACHE_DIR: process.env.LEVEL_CACHE_DIR } : {}),
  });
  /** Where the memory is, from the renderer's own /metrics: its caches, V8's heap, external and array buffers. */
  const breakdown = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const mib = (re: RegExp) => {
      const m = re.exec(text);
      return m ? `${(Number(m[1]) / 1024 / 1024).toFixed(0)}` : '?';
    };
    const files = [...text.matchAll(/^renderer_level_files_total\{result="(\w+)"\} (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`).join(', ');
    return (
      `layers cache ${mib(/renderer_cache_bytes\{cache="layers"\} (\S+)/)} MiB, renders cache ${mib(/renderer_cache_bytes\{cache="renders"\} (\S+)/)} MiB, ` +
      `V8 heap used ${mib(/^nodejs_heap_size_used_bytes (\S+)$/m)} MiB, external ${mib(/^nodejs_external_memory_bytes (\S+)$/m)} MiB` +
      (files ? `; level files: ${files}` : '')
    );
  };
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
  const start = rss();
  let peak = start;
  const samples: number[] = [];
  const timer = setInterval(() => {
    const r = rss();
    peak = Math.max(peak, r);
    samples.push(r);
  }, 100);
  const client = createRendererClient({ addresses: `127.0.0.1:${port}` });
  const formats: ImageFormat[] = ['webp', 'png', 'jpeg'];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
  const end = Date.now() + seconds * 1000;
  let renders = 0;
  let failures = 0;
  console.log(`soak: ${seconds} s, sets ${sets.join(', ')}, RENDER_CACHE_MB=${cacheMb}, 4 in flight; RSS at start ${start.toFixed(0)} MiB; load ${load()}`);
  let nextReport = Date.now() + 10_000;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() < end) {
        const assetSet = pick(sets);
        const r = {
          assetSet,
          view: pick(VIEW_IDS),
          color: `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}`,
          shadow: Math.random() < 0.5,
          plate: Math.random() < 0.5 ? 'B MW 1234' : null,
          format: pick(formats),
          width: 200 + Math.floor(Math.random() * 2201),
        };
        try {
          const s = await client.render(r, { deadlineMs: 60_000 });
          for await (const _ of s.body) void _;
          renders++;
        } catch {
          failures++; // a view a set lacks answers NOT_FOUND; counted, not fatal
        }
        if (Date.now() > nextReport) {
          nextReport += 10_000;
          console.log(`  ${renders} renders, RSS ${rss().toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB`);
        }
      }
    }),
  );
  clearInterval(timer);
  const last = rss();
  const where = await breakdown().catch((e) => `(metrics unavailable: ${(e as Error).message})`);
  const tail = samples.slice(Math.floor(samples.length / 2));
  client.close();
  child.kill('SIGTERM');
  console.log(
    `soak done: ${renders} renders (${failures} refused) in ${seconds} s; RSS start ${start.toFixed(0)} MiB, end ${last.toFixed(0)} MiB, ` +
      `peak ${peak.toFixed(0)} MiB, second-half mean ${(tail.reduce((a, b) => a + b, 0) / Math.max(1, tail.length)).toFixed(0)} MiB; ` +
      `cache budget ${cacheMb} MiB → peak overhead ${(peak - cacheMb).toFixed(0)} MiB; load ${load()}`,
  );
  console.log(`at the end: ${where}`);
}

await main();
