/**
 * Photographed sets (renderer/assets/photo-split.ts): a baked set's base + paint mask (+ shadow,
 * coverage) are imported as if photographed, D and S are derived from them, and the recoloured
 * renders of the derived set are compared with those of the true set (the baker's own D and S) for
 * the eight named colours: CIEDE2000 of the colour of the render (docs/asset-format.md, "Calibration":
 * the per-channel median, linear light, of the reference region), per view. Prints the table
 * docs/studio.md shows.
 *
 *   npx mocha test/studio/photo-split.test.ts
 *   (PHOTO_SPLIT_SET=<set> picks the baked set, PHOTO_SPLIT_ASSETS=<dir> the folder it is in)
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { NAMED_COLORS } from '../../shared/colors.ts';
import type { ViewId } from '../../shared/views.ts';
import { referenceRegion } from '../../baker/calibrate.ts';
import { decodeLayerFiles } from '../../renderer/assets/decode-layers.ts';
import type { Layers } from '../../renderer/assets/layers.ts';
import { backdropRows, fitBackdrop } from '../../studio/photo/backdrop.ts';
import { domainOpening, maskedBoxMean, squareFilter } from '../../studio/photo/morphology.ts';
import { isPhotographedSet, splitPhotographedSet, type SplitReport } from '../../studio/photo/split.ts';
import { layerPath } from '../../shared/asset-format/layer-files.ts';
import { readSetMeta, type AssetSetMeta } from '../../shared/asset-format/read-set.ts';
import { AssetSetError } from '../../shared/asset-format/set-json.ts';
import { kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';
import { compositeKernel } from '../support/reference-kernel.ts';
import { startRendererServer } from '../../renderer/server.ts';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import { ciede2000, linearToLab } from '../support/color/ciede2000.ts';
import { LUMA, SRGB8_TO_LINEAR, hexToLinear } from '../../shared/color/srgb.ts';

const ASSETS = path.resolve('assets');
const BAKED_DIR = path.resolve(process.env.PHOTO_SPLIT_ASSETS ?? 'assets');
/** Baked sets tried in order (the first in format 2 is used), then the committed synthetic set. */
const BAKED = [process.env.PHOTO_SPLIT_SET, 'sedan-a', 'suv-a', 'hatchback-a'].filter(Boolean) as string[];
const VIEWS: ViewId[] = ['side_right', 'front_left', 'rear', 'top_down'];
/** Thresholds on the ΔE00 between the derived and the true set's render colour. */
const MAX_MEAN_DE = 1.5;
const MAX_DE = 4;
/** The split set on its own, against the asked colour (its own reference region): the colour contract. */
const MAX_ASKED_DE = 2;
/** Loose guards on the per-pixel figures (the broad reflections a top-hat cannot separate). */
const MAX_PIXEL_DE = 4.5;
const MAX_EDGE_BLACK_DE = 12;
const MAX_GLASS_BLACK_DE = 15;

function format2(id: string, dir = ASSETS): boolean {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, id, 'set.json'), 'utf8')).format === 2;
  } catch {
    return false;
  }
}

/** Copies a set's photographed layers (base, paint, shadow, coverage) and writes the input set.json. */
function photographedCopy(srcId: string, views: ViewId[], into: string, opts: { neutral?: boolean; from?: string } = {}): string {
  const src = path.join(opts.from ?? ASSETS, srcId);
  const meta = JSON.parse(fs.readFileSync(path.join(src, 'set.json'), 'utf8'));
  const dir = path.join(into, srcId);
  const vj: Record<string, unknown> = {};
  for (const v of views) {
    fs.mkdirSync(path.join(dir, v), { recursive: true });
    for (const l of ['base', 'paint', 'shadow', 'coverage']) {
      const f = path.join(src, v, `${l}.png`);
      if (fs.existsSync(f)) fs.copyFileSync(f, path.join(dir, v, `${l}.png`));
    }
    const m = meta.views[v];
    vj[v] = { width: m.width, height: m.height, plate_quad: m.plate_quad, shadow: m.shadow };
  }
  const json = {
    id: srcId,
    revision: 'photo-test',
    ...(opts.neutral === false ? {} : { neutral_paint: meta.neutral_paint }),
    source: { note: `the base and paint mask of ${src}, split as if photographed` },
    views: vj,
  };
  fs.writeFileSync(path.join(dir, 'set.json'), JSON.stringify(json, null, 2));
  return dir;
}

async function loadView(meta: AssetSetMeta, view: ViewId): Promise<Layers> {
  const v = meta.views[view]!;
  return decodeLayerFiles(
    `${meta.id}/${view}`,
    {
      base: layerPath(meta.dir, view, 'base'),
      paint: layerPath(meta.dir, view, 'paint'),
      diffuse: layerPath(meta.dir, view, 'diffuse'),
      specular: layerPath(meta.dir, view, 'specular'),
      shadow: null,
      coverage: null,
    },
    v.lightDepth,
    v.width,
    v.height,
    CPU_LEVEL_EXTRAS,
  );
}

/** The renderer's cpu kernel: colour `hex` on the studio backdrop, no shadow, no plate. */
function render(meta: AssetSetMeta, view: ViewId, l: Layers, hex: string): Uint8Array {
  const v = meta.views[view]!;
  const out = new Uint8Array(l.width * l.height * 3);
  compositeKernel(
    kernelInput(
      { layers: l, color: hexToLinear(hex), neutral: meta.neutral, calibration: v.calibration, shadow: false, plate: null, transparent: null },
      out,
    ),
  );
  return out;
}

/** The colour of a render: per-channel median of the region, linear light. */
function regionColour(img: Uint8Array, region: Uint32Array): [number, number, number] {
  const out: number[] = [];
  for (let c = 0; c < 3; c++) {
    const hist = new Uint32Array(256);
    for (const i of region) hist[img[i * 3 + c]!]!++;
    let acc = 0;
    let v = 0;
    while (v < 255 && acc + hist[v]! <= region.length / 2) acc += hist[v++]!;
    out.push(SRGB8_TO_LINEAR[v]!);
  }
  return out as [number, number, number];
}

const lab8 = (img: Uint8Array, i: number) =>
  linearToLab(SRGB8_TO_LINEAR[img[i * 3]!]!, SRGB8_TO_LINEAR[img[i * 3 + 1]!]!, SRGB8_TO_LINEAR[img[i * 3 + 2]!]!);

/** Mean per-pixel ΔE00 of two renders over `idx` (every `step`-th). */
function meanPixelDe(a: Uint8Array, b: Uint8Array, idx: ArrayLike<number>, step = 4): number {
  let s = 0;
  let n = 0;
  for (let k = 0; k < idx.length; k += step) {
    const i = idx[k]!;
    s += ciede2000(lab8(a, i), lab8(b, i));
    n++;
  }
  return n ? s / n : 0;
}

/**
 * Partly painted pixels, in two kinds: paint edges (a fully painted and an unpainted pixel within 2 px:
 * the mask's anti-aliasing) and the rest (wide partly painted areas: paint seen through glass).
 */
function partialPixels(paint: Uint8Array, w: number, h: number): { edges: number[]; behindGlass: number[] } {
  const edges: number[] = [];
  const behindGlass: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const m = paint[i]!;
      if (m === 0 || m === 255) continue;
      let full = false;
      let none = false;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const q = paint[yy * w + xx]!;
          if (q === 255) full = true;
          else if (q === 0) none = true;
        }
      }
      (full && none ? edges : behindGlass).push(i);
    }
  }
  return { edges, behindGlass };
}

function compareSets(label: string, trueMeta: AssetSetMeta, derivedMeta: AssetSetMeta, views: ViewId[]) {
  return async () => {
    const rows: string[] = [];
    const all: number[] = [];
    const perColour: Record<string, number[]> = {};
    const failures: string[] = [];
    for (const view of views) {
      const t = await loadView(trueMeta, view);
      const d = await loadView(derivedMeta, view);
      expect(Buffer.from(d.base).equals(Buffer.from(t.base)), `${view}: the base is kept as it is`).to.equal(true);
      const region = referenceRegion(t.paint, t.diffuse, t.specular);
      expect(region.length, `${view}: reference region`).to.be.greaterThan(500);
      const ownRegion = referenceRegion(d.paint, d.diffuse, d.specular);
      let asked = 0;
      // partly painted pixels: a paint edge (paint and no paint within 2 px) or paint seen through glass
      const { edges, behindGlass } = partialPixels(t.paint, t.width, t.height);
      const cells: string[] = [];
      let pix = 0;
      let edgeBlack = 0;
      let glassBlack = '–';
      for (const [name, hex] of Object.entries(NAMED_COLORS)) {
        const rt = render(trueMeta, view, t, hex);
        const rd = render(derivedMeta, view, d, hex);
        const ct = regionColour(rt, region);
        const cd = regionColour(rd, region);
        const de = ciede2000(linearToLab(...ct), linearToLab(...cd));
        const deAsked = ciede2000(linearToLab(...regionColour(rd, ownRegion)), linearToLab(...hexToLinear(hex)));
        asked = Math.max(asked, deAsked);
        if (deAsked > MAX_ASKED_DE) failures.push(`${view} ${name}: the split set renders ΔE00 ${deAsked.toFixed(2)} from the asked colour`);
        all.push(de);
        (perColour[name] ??= []).push(de);
        cells.push(de.toFixed(2));
        pix += meanPixelDe(rt, rd, region) / Object.keys(NAMED_COLORS).length;
        if (name === 'black') {
          edgeBlack = meanPixelDe(rt, rd, edges, 1);
          glassBlack = behindGlass.length ? meanPixelDe(rt, rd, behindGlass, 1).toFixed(2) : '–';
        }
        if (de > MAX_DE) failures.push(`${view} ${name}: ΔE00 ${de.toFixed(2)}`);
      }
      rows.push(`| ${view} | ${cells.join(' | ')} | ${pix.toFixed(2)} | ${edgeBlack.toFixed(2)} | ${glassBlack} | ${asked.toFixed(2)} |`);
      if (pix > MAX_PIXEL_DE) failures.push(`${view}: per-pixel ΔE00 ${pix.toFixed(2)} on the reference region`);
      if (edgeBlack > MAX_EDGE_BLACK_DE) failures.push(`${view}: per-pixel ΔE00 ${edgeBlack.toFixed(2)} at the paint edges on black`);
      if (Number(glassBlack) > MAX_GLASS_BLACK_DE) failures.push(`${view}: per-pixel ΔE00 ${glassBlack} on paint seen through glass, black`);
    }
    const mean = all.reduce((p, q) => p + q, 0) / all.length;
    const max = Math.max(...all);
    const names = Object.keys(NAMED_COLORS);
    console.log(`\n      ${label}: ΔE00 of the render colour, derived vs true set (reference region, cpu kernel)`);
    console.log(
      `      | view | ${names.join(' | ')} | per-pixel mean, reference region | per-pixel mean, paint edges on black | per-pixel mean, paint through glass on black | split set vs asked, worst |`,
    );
    console.log(`      | --- | ${names.map(() => '---').join(' | ')} | --- | --- | --- | --- |`);
    for (const r of rows) console.log(`      ${r}`);
    console.log(
      `      | mean | ${names.map((n) => (perColour[n]!.reduce((p, q) => p + q, 0) / perColour[n]!.length).toFixed(2)).join(' | ')} | | | | |`,
    );
    console.log(`      overall: mean ${mean.toFixed(2)}, max ${max.toFixed(2)} (thresholds ${MAX_MEAN_DE} / ${MAX_DE})`);
    expect(failures, failures.join('; ')).to.deep.equal([]);
    expect(mean).to.be.at.most(MAX_MEAN_DE);
  };
}

describe('photographed sets: D and S derived from base + paint mask', function () {
  this.timeout(600_000);
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-photo-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('morphology: the van Herk/Gil-Werman square filter and the masked box mean equal brute force; the opening stays under the image inside its domain', () => {
    const w = 37;
    const h = 23;
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff);
    const img = Float32Array.from({ length: w * h }, rnd);
    for (const r of [1, 3, 6, 20]) {
      for (const max of [false, true]) {
        const fast = Float32Array.from(img);
        squareFilter(fast, w, h, r, max);
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            let best = max ? -Infinity : Infinity;
            for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
              for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
                best = max ? Math.max(best, img[yy * w + xx]!) : Math.min(best, img[yy * w + xx]!);
              }
            }
            expect(fast[y * w + x], `r ${r} ${max ? 'max' : 'min'} at ${x},${y}`).to.equal(best);
          }
        }
      }
    }
    const wgt = Float32Array.from({ length: w * h }, (_, i) => (i % 3 === 0 ? 0 : 1));
    for (const r of [1, 4, 30]) {
      const box = maskedBoxMean(img, wgt, w, h, r);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let a = 0;
          let b = 0;
          for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
            for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
              a += wgt[yy * w + xx]! * img[yy * w + xx]!;
              b += wgt[yy * w + xx]!;
            }
          }
          expect(box[y * w + x]!, `box r ${r} at ${x},${y}`).to.be.closeTo(a / b, 1e-5);
        }
      }
    }
    const domain = Uint8Array.from({ length: w * h }, (_, i) => (i % w > 5 && i % w < 30 ? 1 : 0));
    const open = domainOpening(img, domain, w, h, 3);
    for (let i = 0; i < w * h; i++) if (domain[i]) expect(open[i]!).to.be.at.most(img[i]!);
  });

  it('CIEDE2000 gives the published values of Sharma, Wu & Dalal', () => {
    const pairs: [number[], number[], number][] = [
      [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
      [[50, 0, 0], [50, -1, 2], 2.3669],
      [[50, 2.49, -0.001], [50, -2.49, 0.0011], 7.2195],
      [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
      [[22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 2.0373],
      [[2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514], 0.9082],
    ];
    for (const [a, b, e] of pairs) expect(ciede2000(a, b)).to.be.closeTo(e, 1e-4);
  });

  describe('the committed synthetic set (800 px, with coverage)', () => {
    let report: SplitReport;
    let trueMeta: AssetSetMeta;
    let derivedMeta: AssetSetMeta;
    const views: ViewId[] = ['side_right', 'front_left', 'rear', 'top_down'];
    before(async function () {
      if (!format2('synthetic')) this.skip();
      const input = photographedCopy('synthetic', views, path.join(tmp, 'in'));
      expect(await isPhotographedSet(input)).to.equal(true);
      expect(await isPhotographedSet(path.join(ASSETS, 'synthetic'))).to.equal(false);
      report = await splitPhotographedSet(input, path.join(tmp, 'out', 'synthetic'));
      trueMeta = await readSetMeta(path.join(ASSETS, 'synthetic'));
      derivedMeta = await readSetMeta(report.dir);
    });

    it('writes format 2: photographed source, neutral paint, coverage and shadow flags, calibration, a backdrop', () => {
      const json = JSON.parse(fs.readFileSync(path.join(report.dir, 'set.json'), 'utf8'));
      expect(json.format).to.equal(2);
      expect(json.source.kind).to.equal('photographed');
      const trueNeutral = JSON.parse(fs.readFileSync(path.join(ASSETS, 'synthetic', 'set.json'), 'utf8')).neutral_paint as string;
      expect(json.neutral_paint).to.equal(trueNeutral.toUpperCase());
      for (const v of views) {
        expect(derivedMeta.views[v]!.coverage).to.equal(trueMeta.views[v]!.coverage);
        expect(derivedMeta.views[v]!.shadow).to.equal(trueMeta.views[v]!.shadow);
        expect(derivedMeta.views[v]!.plateQuad).to.deep.equal(trueMeta.views[v]!.plateQuad);
        expect(derivedMeta.views[v]!.calibration.diffuseGain).to.be.greaterThan(0);
        expect(derivedMeta.views[v]!.lightDepth).to.deep.equal({ diffuse: 8, specular: 8 });
      }
      expect(derivedMeta.backdrop).to.not.equal(null);
    });

    it('the fitted backdrop follows the base where coverage is 0 at least as closely as the set\'s own', async () => {
      // the synthetic backdrop is flat, then a ramp: a straight line fits it only on average
      const err = (b: { top: number[]; bottom: number[] }, rows: ReturnType<typeof backdropRows>) => {
        let e = 0;
        let n = 0;
        for (let k = 0; k < rows.t.length; k++) {
          for (let c = 0; c < 3; c++) e += Math.abs(b.top[c]! + (b.bottom[c]! - b.top[c]!) * rows.t[k]! - rows.rgb[k]![c]!);
          n += 3;
        }
        return e / n;
      };
      for (const v of views) {
        const l = await decodeLayerFiles(
          v,
          { ...Object.fromEntries((['base', 'paint', 'diffuse', 'specular'] as const).map((x) => [x, layerPath(trueMeta.dir, v, x)])), shadow: null, coverage: layerPath(trueMeta.dir, v, 'coverage') } as never,
          trueMeta.views[v]!.lightDepth,
          trueMeta.views[v]!.width,
          trueMeta.views[v]!.height,
          CPU_LEVEL_EXTRAS,
        );
        const rows = backdropRows({ width: l.width, height: l.height, base: l.base, paint: l.paint, coverage: l.coverage });
        const mine = err(derivedMeta.backdrop!, rows);
        expect(mine, `${v}: mean |backdrop − base|`).to.be.below(0.03);
        if (trueMeta.backdrop) expect(mine, v).to.be.at.most(err(trueMeta.backdrop, rows) + 0.002);
      }
    });

    it('Tn·D + S gives back the base inside the paint (luminance, fully painted pixels)', async () => {
      for (const v of views) {
        const l = await loadView(derivedMeta, v);
        const yn = LUMA[0] * derivedMeta.neutral[0] + LUMA[1] * derivedMeta.neutral[1] + LUMA[2] * derivedMeta.neutral[2];
        let err = 0;
        let n = 0;
        for (let i = 0; i < l.paint.length; i++) {
          if (l.paint[i] !== 255) continue;
          const y = LUMA[0] * SRGB8_TO_LINEAR[l.base[i * 3]!]! + LUMA[1] * SRGB8_TO_LINEAR[l.base[i * 3 + 1]!]! + LUMA[2] * SRGB8_TO_LINEAR[l.base[i * 3 + 2]!]!;
          err += Math.abs(y - (yn * l.diffuse[i]! + l.specular[i]!) / 65535);
          n++;
        }
        expect(err / n, `${v}: mean |Y − (Yn·D + S)|`).to.be.below(0.006); // 8-bit storage of D and S
      }
    });

    it('recoloured renders match the true set for the eight named colours', async function () {
      if (!trueMeta) this.skip();
      await compareSets('assets/synthetic', trueMeta, derivedMeta, views)();
    });

    it('the renderer serves the split set over gRPC: studio and transparent background', async () => {
      const config = {
        ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: path.dirname(report.dir), RENDER_BACKEND: 'cpu' }),
        workers: 1,
      };
      const server = await startRendererServer({ config, logger: createLogger('photo-split-test', 'silent') });
      const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
      try {
        const shot = async (background: 'studio' | 'transparent') => {
          const st = await client.render(
            { assetSet: 'synthetic', view: 'side_right', color: '#C41E3A', shadow: true, plate: null, format: 'png', width: 400, background },
            { deadlineMs: 20_000 },
          );
          const parts: Buffer[] = [];
          for await (const b of st.body) parts.push(b);
          return sharp(Buffer.concat(parts)).raw().toBuffer({ resolveWithObject: true });
        };
        const studio = await shot('studio');
        expect(studio.info).to.include({ width: 400, height: 225 });
        // the middle of the body is red: the paint was recoloured
        const px = (img: typeof studio, x: number, y: number) => Array.from(img.data.subarray((y * img.info.width + x) * img.info.channels, (y * img.info.width + x + 1) * img.info.channels));
        const layers = await loadView(derivedMeta, 'side_right');
        let cx = 0;
        let cy = 0;
        let c = 0;
        for (let i = 0; i < layers.paint.length; i++) {
          if (layers.paint[i] !== 255) continue;
          cx += i % layers.width;
          cy += Math.floor(i / layers.width);
          c++;
        }
        const [r, g, b] = px(studio, Math.round(((cx / c) * 400) / layers.width), Math.round(((cy / c) * 400) / layers.width));
        expect(r! - Math.max(g!, b!), `red paint, found ${r},${g},${b}`).to.be.greaterThan(60);
        const clear = await shot('transparent');
        expect(clear.info.channels).to.equal(4);
        expect(px(clear, 2, 2)[3], 'corner transparent').to.equal(0);
        expect(px(clear, Math.round(((cx / c) * 400) / layers.width), Math.round(((cy / c) * 400) / layers.width))[3], 'body opaque').to.equal(255);
      } finally {
        client.close();
        await server.close(2000);
      }
    });

    it('estimates the neutral paint when set.json does not give it; renders still match', async () => {
      const input = photographedCopy('synthetic', ['side_right'], path.join(tmp, 'in-est'), { neutral: false });
      const r = await splitPhotographedSet(input, path.join(tmp, 'out-est', 'synthetic'));
      expect(r.neutral_estimated).to.equal(true);
      expect(r.neutral_paint).to.match(/^#[0-9A-F]{6}$/);
      await compareSets('assets/synthetic, neutral paint estimated', trueMeta, await readSetMeta(r.dir), ['side_right'])();
    });
  });

  describe('a baked studio set (2400 px)', () => {
    const id = BAKED.find((s) => format2(s, BAKED_DIR));
    let report: SplitReport;
    let trueMeta: AssetSetMeta;
    let derivedMeta: AssetSetMeta;
    let views: ViewId[] = [];
    before(async function () {
      if (!id) {
        console.log('      (no baked set in format 2 yet: skipped)');
        this.skip();
      }
      trueMeta = await readSetMeta(path.join(BAKED_DIR, id!));
      views = VIEWS.filter((v) => trueMeta.views[v]);
      const input = photographedCopy(id!, views, path.join(tmp, 'in-baked'), { from: BAKED_DIR });
      const t0 = performance.now();
      report = await splitPhotographedSet(input, path.join(tmp, 'out-baked', id!));
      const secs = (performance.now() - t0) / 1000;
      console.log(`      split of ${id} (${views.length} views at ${trueMeta.views[views[0]!]!.width} px): ${secs.toFixed(1)} s; ${Object.entries(report.views).map(([v, r]) => `${v} ${r!.seconds} s`).join(', ')}`);
      derivedMeta = await readSetMeta(report.dir);
    });

    // how fast is printed above, not asserted: a timed assertion fails on a busy machine (npm test runs
    // two files at a time), and speed is the benchmarks' to measure (docs/performance.md)
    it('splits every 2400 px view and reports how long each took', () => {
      expect(Object.keys(report.views).sort()).to.deep.equal([...views].sort());
      for (const [v, r] of Object.entries(report.views)) expect(r!.seconds, v).to.be.a('number').and.be.greaterThan(0);
    });

    it('recoloured renders match the true set for the eight named colours', async () => {
      await compareSets(`assets/${id}`, trueMeta, derivedMeta, views)();
    });
  });

  it('takes an RGBA base, an RGB paint mask and a 16-bit shadow, and stores them as format 2 wants', async () => {
    const input = photographedCopy('synthetic', ['rear'], path.join(tmp, 'forms'));
    const f = (l: string) => path.join(input, 'rear', `${l}.png`);
    const paint = await sharp(f('paint')).toColourspace('b-w').raw().toBuffer();
    fs.writeFileSync(f('base'), await sharp(f('base')).ensureAlpha().png().toBuffer());
    fs.writeFileSync(f('paint'), await sharp(f('paint')).toColourspace('srgb').png().toBuffer());
    fs.writeFileSync(f('shadow'), await sharp(f('shadow')).toColourspace('grey16').png().toBuffer());
    expect((await sharp(f('paint')).metadata()).channels).to.equal(3);
    const r = await splitPhotographedSet(input, path.join(tmp, 'forms-out', 'synthetic'));
    const out = (l: string) => path.join(r.dir, 'rear', `${l}.png`);
    expect(await sharp(out('base')).metadata()).to.include({ channels: 3, depth: 'uchar' });
    for (const l of ['paint', 'shadow', 'diffuse', 'specular']) expect(await sharp(out(l)).metadata(), l).to.include({ channels: 1, depth: 'uchar' });
    expect((await sharp(out('paint')).toColourspace('b-w').raw().toBuffer()).equals(paint)).to.equal(true);
    await readSetMeta(r.dir);
  });

  describe('bad input is refused naming the file', () => {
    it('a missing paint mask, a wrong size, a bad neutral paint, an output folder not named after the set', async () => {
      const input = photographedCopy('synthetic', ['side_right', 'rear'], path.join(tmp, 'bad'));
      const out = path.join(tmp, 'bad-out', 'synthetic');
      const expectError = async (fileEnd: string, re: RegExp, o = out) => {
        try {
          await splitPhotographedSet(input, o);
        } catch (e) {
          expect(e).to.be.instanceOf(AssetSetError);
          expect((e as AssetSetError).file.endsWith(fileEnd), (e as Error).message).to.equal(true);
          expect((e as Error).message).to.match(re);
          expect((e as Error).message).to.not.contain('\n');
          return;
        }
        expect.fail(`no error for ${fileEnd}`);
      };
      await expectError('other-name', /folder's name must be the set id/, path.join(tmp, 'bad-out', 'other-name'));
      const json = JSON.parse(fs.readFileSync(path.join(input, 'set.json'), 'utf8'));
      fs.writeFileSync(path.join(input, 'set.json'), JSON.stringify({ ...json, neutral_paint: 'grey' }));
      await expectError('set.json', /neutral_paint: must be #RRGGBB/);
      fs.writeFileSync(path.join(input, 'set.json'), JSON.stringify(json));
      const small = await sharp(path.join(input, 'rear', 'base.png')).resize(100, 50).png().toBuffer();
      fs.writeFileSync(path.join(input, 'rear', 'base.png'), small);
      await expectError(path.join('rear', 'base.png'), /size 100x50 differs/);
      fs.copyFileSync(path.join(ASSETS, 'synthetic', 'rear', 'base.png'), path.join(input, 'rear', 'base.png'));
      fs.rmSync(path.join(input, 'side_right', 'paint.png'));
      await expectError(path.join('side_right', 'paint.png'), /missing/);
      expect(fs.existsSync(out)).to.equal(false);
    });
  });

  it('the backdrop fit recovers a known vertical gradient', () => {
    const w = 64;
    const h = 40;
    const base = new Uint8Array(w * h * 3);
    const top = [0.9, 0.85, 0.8];
    const bottom = [0.6, 0.62, 0.64];
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        for (let c = 0; c < 3; c++) {
          const v = top[c]! + ((bottom[c]! - top[c]!) * y) / (h - 1);
          base[(y * w + x) * 3 + c] = Math.round(255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055));
        }
      }
    }
    const paint = new Uint8Array(w * h);
    for (let y = 15; y < 25; y++) for (let x = 20; x < 40; x++) paint[y * w + x] = 255;
    const fit = fitBackdrop([backdropRows({ width: w, height: h, base, paint, coverage: null })])!;
    for (let c = 0; c < 3; c++) {
      expect(fit.top[c]).to.be.closeTo(top[c]!, 0.006);
      expect(fit.bottom[c]).to.be.closeTo(bottom[c]!, 0.006);
    }
  });
});
