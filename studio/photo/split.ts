/**
 * Photographed sets (docs/studio.md, "From a real studio's photographs to the format"): a studio that
 * shoots real cars has, per view, a photo of the car in a neutral paint (`base`), a paint mask
 * (`paint`) and optionally a floor-shadow pass (`shadow`) and a coverage matte (`coverage`), but no
 * diffuse/specular split. This module derives D and S once, at import, and writes a set in asset
 * format 2 (docs/asset-format.md):
 *
 * - S, the clear coat's highlights: the white top-hat of the luminance inside the paint
 *   (Y − opening(Y)), with a square structuring element a fraction of the image wide. The opening runs
 *   on the fully painted pixels only (edges eroded away), so the backdrop, glass or tyres beside the
 *   paint never leak into it.
 * - D = (Y − S) / Yn per pixel (Yn the neutral paint's luminance), clamped to 0..1, with S taking any
 *   clamped excess, so that `Tn·D + S` gives back the base's luminance inside the paint.
 * - Partly painted pixels (the mask's anti-aliased edge) mix paint with what lies beside it, so their
 *   D and S are filled in from the nearest fully painted pixels; where the mask is at least half paint
 *   the paint's own light is then unmixed from the base and the unpainted pixels beside it.
 * - the backdrop gradient is fitted to the base where nothing stands in front of it, the calibration
 *   by `calibrateView`.
 *
 *   npm run studio -- split <in-dir> --out <out-dir>
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp, { type OutputInfo } from 'sharp';
import { z } from 'zod';
import { VIEW_IDS, isViewId, sortViews, type ViewId } from '../../shared/views.ts';
import { hexToLinear, linearToSrgb } from '../../shared/color/srgb.ts';
import { calibratedRevision, calibrateView, type ViewCalibration } from '../../baker/calibrate.ts';
import { LIGHT8_TO_LINEAR, encodeLight8 } from '../../shared/asset-format/light-encoding.ts';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';
import { isSetId } from '../../shared/asset-format/set-id.ts';
import { layerPath, writeGreyLayer, writeLightLayer, writeRgbLayer } from '../../shared/asset-format/layer-files.ts';
import {
  ASSET_FORMAT,
  AssetSetError,
  MAX_LAYER_WIDTH,
  neutralPaintSchema,
  quadSchema,
  readJsonFile,
  revisionSchema,
  setIdSchema,
  writeSetJson,
  type SetJsonInput,
} from '../../shared/asset-format/set-json.ts';
import { backdropRows, fitBackdrop } from './backdrop.ts';
import { diffuseLayer, estimateNeutral, highlightLayer, type Highlights, type PhotoView, type Rgb, type SplitParams } from './light.ts';

/** Bumped whenever the split's output for the same input changes; part of the written revision. */
export const SPLIT_VERSION = 1;

// The photographed input folder, read, split view by view (photo-light.ts) and written as a set.

const inputViewSchema = z
  .object({
    width: z.number().int().positive().max(MAX_LAYER_WIDTH),
    height: z.number().int().positive().max(MAX_LAYER_WIDTH),
    plate_quad: z.union([quadSchema, z.null()]).optional(),
    shadow: z.boolean().optional(),
    coverage: z.boolean().optional(),
  })
  .strict();
const inputSetSchema = z
  .object({
    id: setIdSchema,
    revision: revisionSchema,
    neutral_paint: neutralPaintSchema.optional(),
    source: z.record(z.string(), z.unknown()).optional(),
    format: z.unknown().optional(),
    views: z.record(z.string(), inputViewSchema),
  })
  .strict();
export type PhotographedSetJson = z.infer<typeof inputSetSchema>;

const exists = (f: string) =>
  fs.stat(f).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * True when `dir` holds a photographed set: a set.json, not marked format 2, whose views have no
 * diffuse or specular layer.
 */
export async function isPhotographedSet(dir: string): Promise<boolean> {
  let json: { views?: Record<string, unknown>; format?: unknown };
  try {
    json = JSON.parse(await fs.readFile(path.join(dir, 'set.json'), 'utf8')) as typeof json;
  } catch {
    return false;
  }
  if (json?.format === 2) return false; // a finished set (the loader names what it lacks)
  const views = json && typeof json === 'object' && json.views && typeof json.views === 'object' ? Object.keys(json.views) : [];
  if (views.length === 0) return false;
  for (const v of views) {
    if ((await exists(path.join(dir, v, 'diffuse.png'))) || (await exists(path.join(dir, v, 'specular.png')))) return false;
  }
  return true;
}

async function readRgb(file: string, w: number, h: number): Promise<Uint8Array> {
  let r: { data: Buffer; info: OutputInfo };
  try {
    r = await sharp(file).removeAlpha().toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw new AssetSetError(file, `not a readable image (${(e as Error).message})`);
  }
  if (r.info.width !== w || r.info.height !== h) {
    throw new AssetSetError(file, `size ${r.info.width}x${r.info.height} differs from set.json (${w}x${h})`);
  }
  if (r.info.channels !== 3) throw new AssetSetError(file, `expected an RGB image, found ${r.info.channels} channel(s)`);
  return new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.length);
}

/** A mask or matte: greyscale (an RGB file is read as the mean of its channels), 8-bit (16-bit is scaled). */
async function readGrey(file: string, w: number, h: number): Promise<Uint8Array> {
  let r: { data: Buffer; info: OutputInfo };
  try {
    const grey = ((await sharp(file).metadata()).channels ?? 1) <= 2;
    const img = sharp(file).removeAlpha();
    r = await (grey ? img.toColourspace('b-w') : img).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw new AssetSetError(file, `not a readable image (${(e as Error).message})`);
  }
  if (r.info.width !== w || r.info.height !== h) {
    throw new AssetSetError(file, `size ${r.info.width}x${r.info.height} differs from set.json (${w}x${h})`);
  }
  const c = r.info.channels;
  if (c === 1) return new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.length);
  if (c !== 3) throw new AssetSetError(file, `expected a greyscale image, found ${c} channel(s)`);
  const out = new Uint8Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = Math.round((r.data[i * 3]! + r.data[i * 3 + 1]! + r.data[i * 3 + 2]!) / 3);
  return out;
}

export interface SplitSetOptions extends SplitParams {
  /** The neutral paint '#RRGGBB', overriding set.json's; estimated when neither gives it. */
  neutral?: string;
  /** Progress lines (one per view). */
  log?: (line: string) => void;
}

export interface SplitReport {
  id: string;
  revision: string;
  dir: string;
  neutral_paint: string;
  neutral_estimated: boolean;
  backdrop: { top: Rgb; bottom: Rgb } | null;
  views: Partial<Record<ViewId, { calibration: ViewCalibration; coverage: boolean; shadow: boolean; seconds: number }>>;
}

const toHex = (c: Rgb) =>
  `#${c
    .map((v) =>
      Math.round(linearToSrgb(v) * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')
    .toUpperCase()}`;


/**
 * Reads a photographed set from `inDir` and writes it as an asset-format-2 set to `outDir` (whose
 * folder name must be the set id). Throws AssetSetError naming the file at fault. Writes into a
 * staging folder beside `outDir` and renames it into place only when the loader accepts it.
 */
export async function splitPhotographedSet(inDir: string, outDir: string, opts: SplitSetOptions = {}): Promise<SplitReport> {
  inDir = path.resolve(inDir);
  outDir = path.resolve(outDir);
  const setFile = path.join(inDir, 'set.json');
  const input = await readJsonFile(setFile, inputSetSchema);
  if (path.basename(outDir) !== input.id) {
    throw new AssetSetError(outDir, `the output folder's name must be the set id "${input.id}" (the renderer finds sets by folder name)`);
  }
  if (path.resolve(outDir) === inDir) throw new AssetSetError(outDir, 'the output folder must differ from the input folder');
  const viewIds = Object.keys(input.views);
  if (viewIds.length === 0) throw new AssetSetError(setFile, 'views: no view listed');
  for (const id of viewIds) {
    if (!isViewId(id)) throw new AssetSetError(setFile, `views.${id}: unknown view id (expected one of ${VIEW_IDS.join(', ')})`);
  }
  const neutralHex = opts.neutral ?? input.neutral_paint;
  if (neutralHex !== undefined && !/^#[0-9A-Fa-f]{6}$/.test(neutralHex)) {
    throw new AssetSetError(setFile, `neutral paint "${neutralHex}" must be #RRGGBB`);
  }

  // Read every view and its highlights first: the neutral paint, when estimated, comes from all of them.
  interface Loaded {
    id: ViewId;
    v: PhotoView;
    hl: Highlights;
    shadow: string | null;
    coverage: string | null;
    quad: SetJsonInput['views'][string]['plate_quad'];
    seconds: number;
  }
  const loaded: Loaded[] = [];
  for (const id of sortViews(viewIds as ViewId[])) {
    const t0 = performance.now();
    const iv = input.views[id]!;
    const dir = path.join(inDir, id);
    const file = (l: string) => path.join(dir, `${l}.png`);
    for (const l of ['diffuse', 'specular']) {
      if (await exists(file(l))) throw new AssetSetError(file(l), 'a photographed view has base + paint only (D and S are derived); remove it or import the folder as a finished set');
    }
    for (const l of ['base', 'paint']) if (!(await exists(file(l)))) throw new AssetSetError(file(l), 'missing');
    const hasShadow = await exists(file('shadow'));
    const wantShadow = iv.shadow ?? hasShadow;
    if (wantShadow && !hasShadow) throw new AssetSetError(file('shadow'), `missing (set.json views.${id}.shadow is true)`);
    if (!wantShadow && hasShadow) throw new AssetSetError(file('shadow'), `present but set.json views.${id}.shadow is false`);
    const hasCoverage = await exists(file('coverage'));
    const wantCoverage = iv.coverage ?? hasCoverage;
    if (wantCoverage && !hasCoverage) throw new AssetSetError(file('coverage'), `missing (set.json views.${id}.coverage is true)`);
    if (!wantCoverage && hasCoverage) throw new AssetSetError(file('coverage'), `present but set.json views.${id}.coverage is false`);
    const base = await readRgb(file('base'), iv.width, iv.height);
    const paint = await readGrey(file('paint'), iv.width, iv.height);
    let full = 0;
    for (let i = 0; i < paint.length; i++) if (paint[i] === 255) full++;
    if (full < 64) throw new AssetSetError(file('paint'), `the mask has ${full} fully painted pixel(s): 255 must mark the body paint`);
    const coverage = wantCoverage ? await readGrey(file('coverage'), iv.width, iv.height) : null;
    if (wantShadow) await readGrey(file('shadow'), iv.width, iv.height); // checked here, written as 8-bit grey below
    const v: PhotoView = { width: iv.width, height: iv.height, base, paint, coverage };
    const hl = highlightLayer(v, opts);
    loaded.push({
      id,
      v,
      hl,
      shadow: wantShadow ? file('shadow') : null,
      coverage: wantCoverage ? file('coverage') : null,
      quad: iv.plate_quad ?? null,
      seconds: (performance.now() - t0) / 1000,
    });
  }

  let neutral: Rgb;
  let estimated = false;
  if (neutralHex) neutral = hexToLinear(neutralHex.toUpperCase());
  else {
    estimated = true;
    neutral = hexToLinear(toHex(estimateNeutral(loaded)));
  }
  const hex = toHex(neutral);
  const backdrop = fitBackdrop(loaded.map((l) => backdropRows(l.v)));

  const staging = path.join(path.dirname(outDir), `.${input.id}.splitting-${process.pid}`, input.id);
  await fs.rm(path.dirname(staging), { recursive: true, force: true });
  await fs.mkdir(staging, { recursive: true });
  const report: SplitReport = {
    id: input.id,
    revision: calibratedRevision(`${input.revision}-split${SPLIT_VERSION}`),
    dir: outDir,
    neutral_paint: hex,
    neutral_estimated: estimated,
    backdrop,
    views: {},
  };
  const viewsJson: SetJsonInput['views'] = {};
  try {
    for (const l of loaded) {
      const t0 = performance.now();
      const { width: w, height: h } = l.v;
      const n = w * h;
      const light = diffuseLayer(l.v, l.hl, neutral);
      l.hl = { y: new Float32Array(0), s: new Float32Array(0), radius: l.hl.radius }; // free
      const d8 = Buffer.alloc(n);
      const s8 = Buffer.alloc(n);
      const dq = new Float32Array(n);
      const sq = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        d8[i] = encodeLight8(light.diffuse[i]!);
        s8[i] = encodeLight8(light.specular[i]!);
        dq[i] = LIGHT8_TO_LINEAR[d8[i]!]!; // calibrate on what the renderer will read
        sq[i] = LIGHT8_TO_LINEAR[s8[i]!]!;
      }
      let calibration: ViewCalibration;
      try {
        calibration = calibrateView({ width: w, height: h, paint: l.v.paint, diffuse: dq, specular: sq });
      } catch (e) {
        throw new AssetSetError(path.join(inDir, l.id, 'paint.png'), `cannot calibrate: ${(e as Error).message}`);
      }
      const dir = path.join(staging, l.id);
      await fs.mkdir(dir);
      // the photographed layers go in unchanged: copied when already in the stored form
      const keep = async (name: string, channels: number, data: () => Promise<Uint8Array>) => {
        const from = path.join(inDir, l.id, `${name}.png`);
        const m = await sharp(from).metadata();
        const to = path.join(dir, `${name}.png`);
        if (m.format === 'png' && m.channels === channels && m.depth === 'uchar' && !m.hasAlpha) await fs.copyFile(from, to);
        else if (channels === 1) await writeGreyLayer(to, await data(), w, h);
        else await writeRgbLayer(to, await data(), w, h);
      };
      await keep('base', 3, async () => l.v.base);
      await keep('paint', 1, async () => l.v.paint);
      await writeLightLayer(layerPath(staging, l.id, 'diffuse'), d8, w, h);
      await writeLightLayer(layerPath(staging, l.id, 'specular'), s8, w, h);
      if (l.shadow) await keep('shadow', 1, () => readGrey(l.shadow!, w, h));
      if (l.coverage && l.v.coverage) await keep('coverage', 1, async () => l.v.coverage!);
      viewsJson[l.id] = {
        width: w,
        height: h,
        plate_quad: l.quad,
        shadow: l.shadow !== null,
        coverage: l.coverage !== null,
        calibration,
      };
      const seconds = l.seconds + (performance.now() - t0) / 1000;
      report.views[l.id] = { calibration, coverage: l.coverage !== null, shadow: l.shadow !== null, seconds: +seconds.toFixed(2) };
      opts.log?.(`${l.id}: split in ${seconds.toFixed(1)} s (top-hat radius ${l.hl.radius} px), gain ${calibration.diffuse_gain}, floor ${calibration.specular_floor}`);
    }
    const setJson = {
      id: input.id,
      format: ASSET_FORMAT,
      revision: report.revision,
      source: {
        ...(input.source ?? {}),
        kind: 'photographed',
        split: {
          method: 'white top-hat of the luminance inside the paint mask (studio/photo/split.ts)',
          version: SPLIT_VERSION,
          input_revision: input.revision,
          neutral_paint: estimated ? 'estimated from the paint' : 'given',
        },
      },
      neutral_paint: hex,
      ...(backdrop ? { backdrop } : {}),
      views: viewsJson,
    };
    await writeSetJson(staging, setJson);
    await readSetMeta(staging); // the renderer's loader must accept what we wrote
    await fs.rm(outDir, { recursive: true, force: true });
    await fs.rename(staging, outDir);
  } finally {
    await fs.rm(path.dirname(staging), { recursive: true, force: true });
  }
  return report;
}

/**
 * Splits a photographed set into a fresh temporary folder (for `studio import`): returns the set's
 * folder there, the report, and a function that removes the temporary folder.
 */
export async function splitPhotographedSetToTemp(
  inDir: string,
  opts: SplitSetOptions = {},
): Promise<{ dir: string; report: SplitReport; cleanup: () => Promise<void> }> {
  const setFile = path.join(path.resolve(inDir), 'set.json');
  let id = 'set';
  try {
    const j = JSON.parse(await fs.readFile(setFile, 'utf8')) as { id?: unknown };
    if (typeof j.id === 'string' && isSetId(j.id)) id = j.id;
  } catch {
    // splitPhotographedSet names the problem
  }
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'vis-split-'));
  const cleanup = () => fs.rm(tmp, { recursive: true, force: true });
  try {
    const report = await splitPhotographedSet(inDir, path.join(tmp, id), opts);
    return { dir: report.dir, report, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
