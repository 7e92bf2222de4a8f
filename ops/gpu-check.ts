/**
 * `npm run gpu:check [-- options]`: what a GPU host does for this service, in one go (docs/performance.md,
 * "GPU"): the GL renderer string; RENDER_BACKEND=auto's choice and timings; the parity of gl against
 * cpu over the studio and transparent corpora; the render bench of both backends as one table (miss ÷
 * encode, renders/s); the gl composite's readback modes side by side; and the bake of one view of a
 * glTF model on gl. Also runs from the bundle `npm run gpu:bundle` makes (compiled, plain node).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import sharp from 'sharp';
import { loadRendererConfig } from '../renderer/config.ts';
import { createLogger } from '../shared/logger.ts';
import type { ImageFormat } from '../shared/render-options.ts';
import type { RenderRequest } from '../shared/render-request.ts';
import { VIEW_IDS, type ViewId } from '../shared/views.ts';
import { AssetStore } from '../renderer/assets/asset-store.ts';
import type { Compositor, RgbImage } from '../renderer/backends/backend.ts';
import { CpuCompositor } from '../renderer/backends/cpu/cpu-backend.ts';
import { combineDifferences, compareImages, describeDifference, withinParity, type ImageDifference } from '../renderer/backends/parity.ts';
import { createCompositor, type BackendReport } from '../renderer/backends/select.ts';
import { measureCompositors } from '../renderer/backends/measure.ts';
import { compositeJobFor, probePictures } from '../renderer/backend-probe.ts';
import { encodeImage } from '../renderer/encode/encode.ts';
import { startRendererServer, type RendererInternals } from '../renderer/server.ts';
import { CPU_LEVEL_EXTRAS } from '../renderer/backends/cpu/level-extras.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const program = new Command()
  .name('gpu-check')
  .description('Measures this host for the renderer: GL string, auto choice, gl/cpu parity, render bench, bake time')
  .option('--assets <dir>', 'asset sets folder', process.env.ASSETS_DIR ?? path.join(ROOT, 'assets'))
  .option('--set <id>', 'the set to measure with (default: sedan-a, else the first set)')
  .option('--model <file>', 'a glTF model to bake one view of (default: the bundled one, if any)')
  .option('--map <file>', "the model's role map (docs/studio.md)")
  .option('--bake-width <px>', 'width of the baked view', '2400')
  .option('--no-bake', 'skip the bake')
  .option('--spin-set <id>', 'a set with a 3D source to time cold spin frames of (default: sportscoupe-a, else the first with one)')
  .option('--no-spin', 'skip the spin frames')
  .option('--no-bench', 'skip the render bench')
  .option('--reps <n>', 'timed renders per bench cell', '8')
  .option('--json <file>', 'also write every figure as JSON')
  .option('--smoke', 'each section once at its smallest (checks that everything runs, measures nothing)');
program.parse();
const o = program.opts<{ assets: string; set?: string; model?: string; map?: string; bakeWidth: string; bake: boolean; spinSet?: string; spin: boolean; bench: boolean; reps: string; json?: string; smoke?: boolean }>();
const SMOKE = Boolean(o.smoke);
const REPS = SMOKE ? 2 : Math.max(2, Number(o.reps) || 8);
const CONCURRENT = SMOKE ? 4 : 32;
const quiet = createLogger('gpu-check', 'silent');
const results: Record<string, unknown> = { host: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?', node: process.version } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;
const section = (t: string) => console.log(`\n== ${t}`);

async function pickSet(): Promise<string> {
  if (o.set) return o.set;
  const names = (await fs.readdir(o.assets, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const sets: string[] = [];
  for (const n of names) if (await fs.stat(path.join(o.assets, n, 'set.json')).then(() => true, () => false)) sets.push(n);
  if (sets.length === 0) throw new Error(`no asset set in ${o.assets}`);
  return sets.includes('sedan-a') ? 'sedan-a' : sets[0]!;
}

async function glCompositor(readback: 'region' | 'full' = 'region'): Promise<Compositor | { error: string }> {
  try {
    const { GlCompositor } = await import('../renderer/backends/gl/gl-backend.ts');
    return await GlCompositor.create({ logger: quiet, readback });
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const setId = await pickSet();
console.log(`gpu-check: ${os.cpus().length} × ${results.host && (results.host as { cpu: string }).cpu}, node ${process.version}, set ${setId} (${o.assets})`);

section('GL');
const gl = await glCompositor();
const glOk = !('error' in gl);
console.log(glOk ? `renderer: ${gl.description}` : `no WebGL2 context: ${gl.error}`);
results.gl = glOk ? gl.description : { error: gl.error };

section("auto's choice (RENDER_BACKEND=auto, as the renderer starts)");
{
  const store = new AssetStore({ dir: o.assets, cacheBytes: 1024 * 1024 * 1024, logger: quiet, levelExtras: CPU_LEVEL_EXTRAS });
  const { compositor, report } = await createCompositor({
    choice: 'auto',
    workers: 0,
    logger: quiet,
    probe: (reference) => probePictures({ store, sets: [setId], reference }),
  });
  printReport(report);
  results.auto = report;
  await compositor.close();
  if (glOk && report.measured.length === 0) {
    // auto did not measure (a software rasterizer): what it would have measured, and what that cost
    const cpu = await CpuCompositor.create({ workers: 0, logger: quiet });
    const t = performance.now();
    const pictures = await probePictures({ store, sets: [setId], reference: cpu });
    const measured = pictures ? await measureCompositors([cpu, gl], pictures.jobs) : [];
    const cost = Math.round(performance.now() - t);
    console.log("what auto would have measured, had it measured (the layers' decode included):");
    printMeasured({ measured, measureMs: cost });
    results.measuredAnyway = { measured, ms: cost };
    await cpu.close();
  }
}

function printReport(r: BackendReport): void {
  console.log(`chose ${r.backend}: ${r.reason}`);
  printMeasured(r);
}

function printMeasured(r: Pick<BackendReport, 'measured' | 'measureMs'>): void {
  for (const m of r.measured) {
    const figures = Object.entries(m.ms).map(([k, v]) => `${k} ${ms(v)}`).join(', ');
    console.log(`  ${m.backend.padEnd(4)} ${figures}${m.parity ? `; parity ${describeDifference(m.parity)}` : ''}${m.refused ? `; refused: ${m.refused}` : ''}`);
  }
  if (r.measured.length) console.log(`  measurement took ${r.measureMs} ms`);
}

if (glOk) {
  section('parity of gl against cpu (contract: at most 2 codes in any channel, PSNR >= 60 dB)');
  const cpu = await CpuCompositor.create({ workers: 0, logger: quiet });
  const store = new AssetStore({ dir: o.assets, cacheBytes: 2048 * 1024 * 1024, logger: quiet, levelExtras: CPU_LEVEL_EXTRAS });
  const set = await store.getSet(setId);
  const corpora: Record<string, { d: ImageDifference; name: string }[]> = { studio: [], transparent: [] };
  for (const view of VIEW_IDS.filter((v) => set.views[v]).slice(0, SMOKE ? 1 : undefined)) {
    for (const width of SMOKE ? [400] : [400, 1600]) {
      for (const color of SMOKE ? ['#C41E3A'] : ['#C41E3A', '#1A1A1A', '#F5F5F5', '#1E4B8C']) {
        for (const [shadow, plate] of [
          [false, null],
          [true, 'XY-98 ÄÖ'],
        ] as const) {
          for (const transparent of set.views[view]!.coverage ? [false, true] : [false]) {
            const job = await compositeJobFor(store, cpu, { assetSet: setId, view, color, shadow, plate, format: 'png', width, background: transparent ? 'transparent' : 'studio' });
            await store.tablesBuilt();
            const a = await cpu.composite(job);
            const b = await gl.composite(job);
            corpora[transparent ? 'transparent' : 'studio']!.push({ d: compareImages(a, b), name: `${view} ${width} px ${color} shadow=${shadow} plate=${plate}` });
            cpu.release?.(a);
            gl.release?.(b);
          }
        }
      }
    }
  }
  const parity: Record<string, unknown> = {};
  for (const [name, list] of Object.entries(corpora)) {
    if (list.length === 0) continue;
    const all = combineDifferences(list.map((r) => r.d));
    const worst = [...list].sort((x, y) => y.d.maxDiff - x.d.maxDiff || x.d.psnr - y.d.psnr)[0]!;
    console.log(`${name}: ${list.length} pictures, ${describeDifference(all)} — ${withinParity(all) && list.every((r) => withinParity(r.d)) ? 'within the contract' : 'BREAKS the contract'}`);
    console.log(`  worst: ${worst.name}: ${describeDifference(worst.d)}`);
    parity[name] = { pictures: list.length, maxDiff: all.maxDiff, psnr: all.psnr, worst: `${worst.name}: ${describeDifference(worst.d)}` };
  }
  results.parity = parity;

  section(`gl composite of ${setId} front_left at full size, readback included: the changing box against the whole picture`);
  const full = await glCompositor('full');
  if (!('error' in full)) {
    const view = set.views.front_left ? 'front_left' : (VIEW_IDS.find((v) => set.views[v]) as ViewId);
    const job = await compositeJobFor(store, cpu, { assetSet: setId, view, color: '#C41E3A', shadow: true, plate: 'AB 123', format: 'png', width: set.views[view]!.width });
    const times: Record<string, number[]> = { region: [], full: [], cpu: [] };
    await store.tablesBuilt();
    for (const c of [gl, full, cpu]) c.release?.(await c.composite(job)); // the level's first picture (background, textures, tables)
    for (let i = 0; i < (SMOKE ? 3 : 60); i++) {
      for (const [name, c] of [['region', gl], ['full', full], ['cpu', cpu]] as const) {
        const t = performance.now();
        const img = await c.composite({ ...job, color: [((i * 37) % 100) / 100, 0.2, 0.3] });
        times[name]!.push(performance.now() - t);
        c.release?.(img);
      }
    }
    for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(7)} p50 ${ms(median(xs))}, p99 ${ms(p99(xs))}`);
    results.composite = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, { p50: median(xs), p99: p99(xs) }]));
    await full.close();
  }
  await cpu.close();
}
if (glOk) await gl.close();

if (glOk) {
  section('raw GL at 2400 x 1350 (no three.js, no shader work): what a draw and a readback cost on this driver');
  const { createHeadlessGl } = await import('../renderer/backends/gl/gl-backend.ts');
  // the members of WebGL 2 used here, as headless-gl has them
  const g = createHeadlessGl() as unknown as Record<string, number> & {
    createTexture(): unknown; bindTexture(t: number, x: unknown): void; texStorage2D(t: number, l: number, f: number, w: number, h: number): void;
    createFramebuffer(): unknown; bindFramebuffer(t: number, f: unknown): void; framebufferTexture2D(a: number, b: number, c: number, t: unknown, l: number): void;
    clearColor(r: number, g: number, b: number, a: number): void; clear(m: number): void; finish(): void; scissor(x: number, y: number, w: number, h: number): void;
    enable(c: number): void; disable(c: number): void; pixelStorei(p: number, v: number): void;
    readPixels(x: number, y: number, w: number, h: number, f: number, t: number, out: Uint8Array): void;
  };
  const W = 2400;
  const H = 1350;
  const t = g.createTexture();
  g.bindTexture(g.TEXTURE_2D!, t);
  g.texStorage2D(g.TEXTURE_2D!, 1, g.RGBA8!, W, H);
  const fb = g.createFramebuffer();
  g.bindFramebuffer(g.FRAMEBUFFER!, fb);
  g.framebufferTexture2D(g.FRAMEBUFFER!, g.COLOR_ATTACHMENT0!, g.TEXTURE_2D!, t, 0);
  const out = new Uint8Array(W * H * 4);
  const time = (f: () => void) => {
    const xs: number[] = [];
    for (let i = 0; i < (SMOKE ? 3 : 40); i++) {
      const a = performance.now();
      f();
      xs.push(performance.now() - a);
    }
    return { p50: median(xs), p99: p99(xs) };
  };
  const clear = (i: number) => {
    g.clearColor((i % 7) / 7, 0.3, 0.6, 1);
    g.clear(g.COLOR_BUFFER_BIT!);
  };
  let i = 0;
  const raw = {
    'clear + finish': time(() => (clear(i++), g.finish())),
    'clear + readPixels, whole frame': time(() => (clear(i++), g.readPixels(0, 0, W, H, g.RGBA!, g.UNSIGNED_BYTE!, out))),
    'clear + readPixels, 60 % box (PACK_ROW_LENGTH)': time(() => {
      clear(i++);
      g.pixelStorei(g.PACK_ROW_LENGTH!, W);
      g.readPixels(480, 300, 1440, 900, g.RGBA!, g.UNSIGNED_BYTE!, out.subarray((300 * W + 480) * 4));
      g.pixelStorei(g.PACK_ROW_LENGTH!, 0);
    }),
    'copy of half a frame in JavaScript (Uint8Array.set)': time(() => out.set(out.subarray(0, W * H * 2), W * H * 2)),
  };
  for (const [k, v] of Object.entries(raw)) console.log(`${k.padEnd(48)} p50 ${ms(v.p50)}, p99 ${ms(v.p99)}`);
  results.rawGl = raw;
}

if (o.bench) {
  section(`render bench: cache misses of ${setId} front_left (shadow, plate) ÷ encoding the same picture alone, p50 of ${REPS}; renders/s of ${CONCURRENT} concurrent jpeg 1600 px misses`);
  const rows: Record<string, Record<string, { miss: number; encode: number; ratio: number }>> = {};
  const perSecond: Record<string, number> = {};
  for (const backend of glOk ? (['cpu', 'gl'] as const) : (['cpu'] as const)) {
    const config = { ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: o.assets, RENDER_BACKEND: backend, RENDER_WARMUP: 'false' }), cacheBytes: 3 * 1024 * 1024 * 1024 };
    let internals: RendererInternals | null = null;
    const server = await startRendererServer({ config, logger: quiet, onInternals: (i) => (internals = i) });
    const { service, store, backend: compositor } = internals!;
    let n = 0;
    const color = () => `#${(0x100000 + ((n++ * 7919) % 0xeffff)).toString(16).padStart(6, '0').toUpperCase()}`;
    for (const format of (SMOKE ? ['jpeg'] : ['webp', 'png', 'jpeg']) as ImageFormat[]) {
      for (const width of SMOKE ? [400] : [400, 1600, 2400]) {
        const req = (c: string): RenderRequest => ({ assetSet: setId, view: 'front_left', color: c, shadow: true, plate: 'AB 123', format, width });
        await service.render(req(color())); // the level decoded, its tables built
        await store.tablesBuilt();
        // the encode's own input: the same picture, composited and resized to the output size beforehand
        const img = await compositor.composite(await compositeJobFor(store, compositor, req('#3A5F8B')));
        const height = Math.round((width * img.height) / img.width);
        const raw = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: img.channels } })
          .removeAlpha()
          .resize(width, height, { fit: 'fill' })
          .raw()
          .toBuffer();
        compositor.release?.(img);
        const alone: RgbImage = { width, height, data: raw, channels: 3, alpha: false };
        const miss: number[] = [];
        const enc: number[] = [];
        for (let r = 0; r < REPS; r++) {
          let t = performance.now();
          await service.render(req(color()));
          miss.push(performance.now() - t);
          t = performance.now();
          await encodeImage(alone, format);
          enc.push(performance.now() - t);
        }
        (rows[`${format} ${width}`] ??= {})[backend] = { miss: median(miss), encode: median(enc), ratio: median(miss) / median(enc) };
      }
    }
    const t = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT }, () => service.render({ assetSet: setId, view: 'front_left', color: color(), shadow: true, plate: 'AB 123', format: 'jpeg', width: 1600 })));
    perSecond[backend] = CONCURRENT / ((performance.now() - t) / 1000);
    await server.close(2000);
  }
  const backends = Object.keys(perSecond);
  console.log(`| picture | ${backends.map((b) => `${b} miss | ${b} encode | ${b} miss ÷ encode`).join(' | ')} |`);
  console.log(`| --- | ${backends.map(() => '---: | ---: | ---:').join(' | ')} |`);
  for (const [k, row] of Object.entries(rows)) {
    console.log(`| ${k} | ${backends.map((b) => `${ms(row[b]!.miss)} | ${ms(row[b]!.encode)} | ${row[b]!.ratio.toFixed(2)}`).join(' | ')} |`);
  }
  console.log(`renders/s, ${CONCURRENT} concurrent jpeg 1600 px misses: ${backends.map((b) => `${b} ${perSecond[b]!.toFixed(0)}`).join(', ')}`);
  results.bench = { rows, perSecond };
}

const model = o.model ?? (await fs.stat(path.join(ROOT, 'gpu-check-model', 'model.glb')).then(() => path.join(ROOT, 'gpu-check-model', 'model.glb'), () => undefined));
const map = o.map ?? (o.model ? undefined : await fs.stat(path.join(ROOT, 'gpu-check-model', 'map.json')).then(() => path.join(ROOT, 'gpu-check-model', 'map.json'), () => undefined));
if (o.bake && model) {
  const width = SMOKE ? 64 : Number(o.bakeWidth);
  section(`bake of one view (front_left) of ${path.basename(model)} at ${width} px on gl`);
  try {
    const [{ gltfSubject }, { readRoleMap }, { bakeSubject, DEFAULT_SUPERSAMPLE }, { createGLRenderer }] = await Promise.all([
      import('../baker/gltf/subject.ts'),
      import('../baker/gltf/roles.ts'),
      import('../baker/bake-set.ts'),
      import('../baker/gl.ts'),
    ]);
    const subject = await gltfSubject(model, map ? await readRoleMap(map) : undefined, map ? { mapFile: map } : {});
    for (const line of subject.report) console.log(`  ${line}`);
    const handle = createGLRenderer();
    const out = await fs.mkdtemp(path.join(os.tmpdir(), 'gpu-check-bake-'));
    const t = performance.now();
    const res = await bakeSubject(handle.renderer, subject, out, {
      id: 'gpu-check',
      width,
      height: Math.round((width * 9) / 16),
      views: ['front_left'],
      samples: 4,
      supersample: DEFAULT_SUPERSAMPLE,
      lightDepth: 8,
    });
    const wall = performance.now() - t;
    console.log(`baked 1 view in ${(res.msPerView[0]! / 1000).toFixed(1)} s (${(wall / 1000).toFixed(1)} s with the set's files written)`);
    results.bake = { model: path.basename(model), width, msPerView: res.msPerView[0], wallMs: wall };
    handle.dispose();
    await fs.rm(out, { recursive: true, force: true });
  } catch (e) {
    console.log(`bake failed: ${(e as Error).message}`);
    results.bake = { error: (e as Error).message };
  }
} else if (o.bake) {
  section('bake: no model given (--model <file.glb>) and none bundled; skipped');
}

/** The set to time spin frames of: --spin-set, else sportscoupe-a when it keeps its source, else the first that does. */
async function pickSpinSet(): Promise<string | null> {
  if (o.spinSet) return o.spinSet;
  const names = (await fs.readdir(o.assets, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const withSource: string[] = [];
  for (const n of names) {
    const text = await fs.readFile(path.join(o.assets, n, 'set.json'), 'utf8').catch(() => '');
    if (text && (JSON.parse(text) as { source?: { spin?: unknown } }).source?.spin) withSource.push(n);
  }
  return withSource.includes('sportscoupe-a') ? 'sportscoupe-a' : (withSource[0] ?? null);
}

const spinSet = o.spin ? await pickSpinSet() : null;
if (spinSet) {
  // through the renderer itself: its frame-baker child, frame cache and queue, as a download meets them
  const width = SMOKE ? 400 : 800;
  section(`cold ${width} px spin frames of ${spinSet} (renderer's frame baker, SPIN_FRAME_SUPERSAMPLE ${SMOKE ? 1 : 4})`);
  const framesDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gpu-check-spin-'));
  try {
    const config = {
      ...loadRendererConfig({ ASSETS_DIR: o.assets, RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDER_BACKEND: glOk ? 'gl' : 'cpu', RENDER_WARMUP: 'false', SPIN_FRAMES_DIR: framesDir, SPIN_FRAME_SUPERSAMPLE: SMOKE ? '1' : '4' }),
    };
    let internals: RendererInternals | undefined;
    const server = await startRendererServer({ config, logger: quiet, onInternals: (i) => (internals = i) });
    const { service, spin } = internals!;
    const bakes: number[] = [];
    spin.onBake((e) => bakes.push(e.seconds * 1000));
    const yaws = SMOKE ? [45, 90] : [45, 90, 135, 225];
    const renders: number[] = [];
    for (const yaw of yaws) {
      const t = performance.now();
      await service.render({ assetSet: spinSet, view: `yaw-${String(yaw).padStart(3, '0')}`, color: '#7A1F2B', shadow: true, plate: 'AB 123', format: 'webp', width });
      renders.push(performance.now() - t);
    }
    const cold = bakes.slice(1);
    console.log(`first frame (the frame baker started, the model loaded): bake ${ms(bakes[0]!)}, render ${ms(renders[0]!)}`);
    console.log(`cold ${width} px frame (model held): bake median ${ms(median(cold))} of ${cold.length}, render median ${ms(median(renders.slice(1)))}`);
    results.spin = { set: spinSet, width, firstBakeMs: bakes[0], coldBakeMs: median(cold), coldRenderMs: median(renders.slice(1)), bakesMs: bakes };
    await server.close(2000);
  } catch (e) {
    console.log(`spin frames failed: ${(e as Error).message}`);
    results.spin = { error: (e as Error).message };
  } finally {
    await fs.rm(framesDir, { recursive: true, force: true });
  }
} else if (o.spin) {
  section('spin frames: no set with a 3D source (--spin-set <id>); skipped');
}

if (o.json) await fs.writeFile(o.json, `${JSON.stringify(results, null, 2)}\n`);
console.log('\ngpu-check done');
process.exit(0);
