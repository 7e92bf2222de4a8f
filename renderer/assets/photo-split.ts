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
 *   npx tsx renderer/assets/photo-split.ts <in-dir> <out-dir>   (or `npm run admin -- assets split`)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp, { type OutputInfo } from 'sharp';
import { z } from 'zod';
import { VIEW_IDS, isViewId, sortViews, type ViewId } from '../../shared/views.ts';
import { LUMA, SRGB8_TO_LINEAR, hexToLinear, linearToSrgb } from '../color/srgb.ts';
import { calibratedRevision, calibrateView, type ViewCalibration } from './calibrate.ts';
import { LIGHT8_TO_LINEAR, encodeLight8 } from './light-encoding.ts';
import { AssetSetError, MAX_LAYER_WIDTH, SET_ID_RE, readSetJson, readSetMeta } from './set-format.ts';

/** Bumped whenever the split's output for the same input changes; part of the written revision. */
export const SPLIT_VERSION = 1;
/** The structuring element's half-size is the image width divided by this. */
export const DEFAULT_RADIUS_DIVISOR = 60;
/** The opening is smoothed by two box means of half-size radius · DEFAULT_SMOOTH. */
export const DEFAULT_SMOOTH = 0.5;

export type Rgb = [number, number, number];

// ---------------------------------------------------------------------------------------------
// Morphology: separable flat min/max filters, van Herk / Gil-Werman (three comparisons a sample,
// whatever the window).

/**
 * Running min (or max) over a window of 2r+1 samples of the `len` samples src[off + i·stride],
 * written to dst at the same places. Samples beyond the ends count as the operation's identity
 * (+∞ for min, −∞ for max): the window is clipped to the line. g and h are scratch, at least
 * len + 2r + 2r + 1 long.
 */
function runningExtreme(
  src: Float32Array,
  dst: Float32Array,
  off: number,
  stride: number,
  len: number,
  r: number,
  max: boolean,
  g: Float32Array,
  h: Float32Array,
): void {
  const k = 2 * r + 1;
  const id = max ? -Infinity : Infinity;
  const L = Math.ceil((len + 2 * r) / k) * k;
  // g holds the padded line first; h is built from it, then g is turned into its block prefixes
  for (let j = 0; j < L; j++) {
    const i = j - r;
    g[j] = i >= 0 && i < len ? src[off + i * stride]! : id;
  }
  if (max) {
    for (let j = L - 1; j >= 0; j--) h[j] = j % k === k - 1 ? g[j]! : Math.max(h[j + 1]!, g[j]!);
    for (let j = 0; j < L; j++) if (j % k !== 0) g[j] = Math.max(g[j - 1]!, g[j]!);
    for (let i = 0; i < len; i++) dst[off + i * stride] = Math.max(h[i]!, g[i + k - 1]!);
  } else {
    for (let j = L - 1; j >= 0; j--) h[j] = j % k === k - 1 ? g[j]! : Math.min(h[j + 1]!, g[j]!);
    for (let j = 0; j < L; j++) if (j % k !== 0) g[j] = Math.min(g[j - 1]!, g[j]!);
    for (let i = 0; i < len; i++) dst[off + i * stride] = Math.min(h[i]!, g[i + k - 1]!);
  }
}

/** Flat erosion (min) or dilation (max) with a (2r+1)² square, separable, in place on `img`. */
export function squareFilter(img: Float32Array, width: number, height: number, r: number, max: boolean): void {
  const n = Math.max(width, height) + 4 * r + 2;
  const g = new Float32Array(n);
  const h = new Float32Array(n);
  const line = new Float32Array(Math.max(width, height));
  for (let y = 0; y < height; y++) runningExtreme(img, img, y * width, 1, width, r, max, g, h);
  // columns: copy out to a contiguous line (cache friendlier than striding through the image)
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) line[y] = img[y * width + x]!;
    runningExtreme(line, line, 0, 1, height, r, max, g, h);
    for (let y = 0; y < height; y++) img[y * width + x] = line[y]!;
  }
}

/**
 * The opening of `y` restricted to `domain` (1 = take part): the largest function under y made of
 * (2r+1)² squares centred on domain pixels, each clipped to the domain. Anti-extensive on the domain
 * (opening ≤ y there); −∞ where no domain square reaches.
 */
export function domainOpening(y: Float32Array, domain: Uint8Array, width: number, height: number, r: number): Float32Array {
  const n = width * height;
  const e = new Float32Array(n);
  for (let i = 0; i < n; i++) e[i] = domain[i] ? y[i]! : Infinity;
  squareFilter(e, width, height, r, false);
  // only squares centred on the domain: a square centred beside the paint could sit on a thin bright
  // rim (a highlight along the silhouette) and keep it out of S
  for (let i = 0; i < n; i++) if (!domain[i]) e[i] = -Infinity;
  squareFilter(e, width, height, r, true);
  return e;
}

/**
 * Box mean of `v` over the (2r+1)² square, counting only pixels with weight w (0 or 1): a normalised
 * convolution, separable running sums. Where no weighted pixel is in reach the value stays.
 */
export function maskedBoxMean(v: Float32Array, w: Float32Array, width: number, height: number, r: number): Float32Array {
  const n = width * height;
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = w[i]! ? v[i]! : 0;
    b[i] = w[i]!;
  }
  const tmp = new Float64Array(width);
  for (const arr of [a, b]) {
    // rows: a running sum along each row
    for (let y = 0; y < height; y++) {
      const off = y * width;
      let acc = 0;
      for (let x = 0; x < Math.min(r, width); x++) acc += arr[off + x]!;
      for (let x = 0; x < width; x++) {
        if (x + r < width) acc += arr[off + x + r]!;
        if (x - r - 1 >= 0) acc -= arr[off + x - r - 1]!;
        tmp[x] = acc;
      }
      arr.set(tmp, off);
    }
    // columns: a running sum of whole rows, row by row (cache friendly)
    const col = new Float64Array(n);
    const acc = new Float64Array(width);
    for (let y = 0; y < Math.min(r, height); y++) for (let x = 0; x < width; x++) acc[x]! += arr[y * width + x]!;
    for (let y = 0; y < height; y++) {
      const add = y + r;
      const drop = y - r - 1;
      if (add < height) for (let x = 0, o = add * width; x < width; x++) acc[x]! += arr[o + x]!;
      if (drop >= 0) for (let x = 0, o = drop * width; x < width; x++) acc[x]! -= arr[o + x]!;
      col.set(acc, y * width);
    }
    arr.set(col);
  }
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = b[i]! > 1e-6 ? a[i]! / b[i]! : v[i]!;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The split of one view.

export interface PhotoView {
  width: number;
  height: number;
  /** 8-bit sRGB RGB, 3 bytes a pixel. */
  base: Uint8Array;
  /** Paint coverage 0..255. */
  paint: Uint8Array;
  coverage: Uint8Array | null;
}

export interface SplitParams {
  /** Half-size of the top-hat's square in pixels; default width / DEFAULT_RADIUS_DIVISOR. */
  radius?: number;
  /** Pixels eroded off the fully painted region before the opening; default max(1, width / 1600). */
  edge?: number;
  /** Half-size of the box mean that smooths the opening, as a fraction of `radius` (0 = none). */
  smooth?: number;
}

export interface Highlights {
  /** Luminance of the base, linear. */
  y: Float32Array;
  /** The highlight layer S (linear) where known; NaN where it must be filled in from neighbours. */
  s: Float32Array;
  radius: number;
}

export function luminance(base: Uint8Array, n: number): Float32Array {
  const y = new Float32Array(n);
  const L = SRGB8_TO_LINEAR;
  for (let i = 0; i < n; i++) {
    const o = i * 3;
    y[i] = LUMA[0] * L[base[o]!]! + LUMA[1] * L[base[o + 1]!]! + LUMA[2] * L[base[o + 2]!]!;
  }
  return y;
}

/** Step 1: the white top-hat of the luminance inside the fully painted region. */
export function highlightLayer(v: PhotoView, params: SplitParams = {}): Highlights {
  const { width: w, height: h } = v;
  const n = w * h;
  const radius = Math.max(1, Math.round(params.radius ?? v.width / DEFAULT_RADIUS_DIVISOR));
  const edge = Math.max(0, Math.round(params.edge ?? Math.max(1, v.width / 1600)));
  const y = luminance(v.base, n);
  // the domain: full paint, eroded by `edge` (a photographed mask's 255 may still touch the edge)
  let full = new Float32Array(n);
  for (let i = 0; i < n; i++) full[i] = v.paint[i] === 255 ? 1 : 0;
  if (edge > 0) squareFilter(full, w, h, edge, false);
  const domain = new Uint8Array(n);
  for (let i = 0; i < n; i++) domain[i] = full[i]! > 0 ? 1 : 0;
  full = new Float32Array(0);
  let open = domainOpening(y, domain, w, h, radius);
  // A flat square opening is piecewise flat with square steps; two passes of a box mean over the
  // domain (close to a Gaussian) take the steps out of D while keeping the level under the highlights.
  const smooth = Math.round(radius * (params.smooth ?? DEFAULT_SMOOTH));
  if (smooth > 0) {
    const wgt = new Float32Array(n);
    for (let i = 0; i < n; i++) wgt[i] = open[i] !== -Infinity && v.paint[i] === 255 ? 1 : 0;
    open = maskedBoxMean(maskedBoxMean(open, wgt, w, h, smooth), wgt, w, h, smooth);
  }
  const s = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (v.paint[i] !== 255 || open[i] === -Infinity) s[i] = v.paint[i] === 0 ? 0 : NaN;
    else s[i] = Math.max(0, y[i]! - open[i]!);
  }
  return { y, s, radius };
}

/**
 * Fills the pixels marked 2 in `state` (0 = not painted, leave; 1 = known; 2 = to fill) of `a` and `b`
 * with the mean of their known 8-neighbours, one ring at a time, growing from the known region
 * (unpainted neighbours never count: their zeros would darken the edge); what no known pixel
 * reaches gets `fallback`.
 */
function fillFromNeighbours(
  a: Float32Array,
  b: Float32Array,
  state: Uint8Array,
  width: number,
  height: number,
  fallback: [number, number],
): void {
  let todo: number[] = [];
  for (let i = 0; i < state.length; i++) if (state[i] === 2) todo.push(i);
  const ready = new Float32Array(2 * todo.length);
  while (todo.length > 0) {
    const next: number[] = [];
    const done: number[] = [];
    for (const i of todo) {
      const x = i % width;
      const y = (i - x) / width;
      let sa = 0;
      let sb = 0;
      let c = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if ((dx === 0 && dy === 0) || xx < 0 || xx >= width) continue;
          const j = yy * width + xx;
          if (state[j] !== 1) continue;
          sa += a[j]!;
          sb += b[j]!;
          c++;
        }
      }
      if (c > 0) {
        ready[2 * done.length] = sa / c;
        ready[2 * done.length + 1] = sb / c;
        done.push(i);
      } else next.push(i);
    }
    if (done.length === 0) {
      for (const i of next) {
        a[i] = fallback[0];
        b[i] = fallback[1];
        state[i] = 1;
      }
      return;
    }
    // write after the pass, so that a ring only sees the rings before it
    for (let k = 0; k < done.length; k++) {
      const i = done[k]!;
      a[i] = ready[2 * k]!;
      b[i] = ready[2 * k + 1]!;
      state[i] = 1;
    }
    todo = next;
  }
}

export interface SplitLight {
  diffuse: Float32Array;
  specular: Float32Array;
}

/** Step 2: D = (Y − S) / Yn inside the paint, clamped, S taking the excess; edges filled in. */
export function diffuseLayer(v: PhotoView, hl: Highlights, neutral: Rgb): SplitLight {
  const n = v.width * v.height;
  const yn = LUMA[0] * neutral[0] + LUMA[1] * neutral[1] + LUMA[2] * neutral[2];
  if (!(yn > 0)) throw new Error('the neutral paint is black');
  const d = new Float32Array(n);
  const s = Float32Array.from(hl.s);
  const state = new Uint8Array(n);
  const known: number[] = [];
  for (let i = 0; i < n; i++) {
    const si = s[i]!;
    if (v.paint[i] === 0) {
      d[i] = 0;
      s[i] = 0;
    } else if (Number.isNaN(si)) {
      state[i] = 2;
      d[i] = 0;
      s[i] = 0;
    } else {
      state[i] = 1;
      const yi = hl.y[i]!;
      let di = (yi - si) / yn;
      di = di < 0 ? 0 : di > 1 ? 1 : di;
      d[i] = di;
      s[i] = Math.max(0, yi - yn * di);
      known.push(di);
    }
  }
  known.sort((p, q) => p - q);
  const medianD = known.length ? known[known.length >> 1]! : 0.5;
  fillFromNeighbours(d, s, state, v.width, v.height, [medianD, 0]);
  unmixEdges(v, hl.y, yn, d, s);
  boundByBase(v, hl.y, yn, d, s);
  return { diffuse: d, specular: s };
}

/**
 * A partly painted pixel's paint cannot be brighter than the pixel (the rest, R = Y − m·P, would be
 * negative: the compositor would clamp it and the paint's light would be counted twice), nor so dim
 * that the rest would exceed 1 − m. Filled values break that where the paint's light changes fast
 * (paint seen through glass, a sill in shadow): there D and S are scaled down, or S raised.
 */
function boundByBase(v: PhotoView, y: Float32Array, yn: number, d: Float32Array, s: Float32Array): void {
  for (let i = 0; i < v.paint.length; i++) {
    const m8 = v.paint[i]!;
    if (m8 === 0 || m8 === 255) continue;
    const m = m8 / 255;
    const p = yn * d[i]! + s[i]!;
    const hi = y[i]! / m;
    const lo = (y[i]! - (1 - m)) / m;
    if (p > hi) {
      const k = p > 0 ? hi / p : 0;
      d[i]! *= k;
      s[i]! *= k;
    } else if (p < lo) s[i] = Math.min(1, s[i]! + (lo - p));
  }
}

/** Partly painted pixels at least this painted take their paint's light from the unmixed base. */
export const UNMIX_MIN_PAINT = 128;

/**
 * At a partly painted pixel the base is `(1 − m)·R + m·P`: R what lies beside the paint, P the paint's
 * light (Tn·D + S). With R's luminance taken from the nearest unpainted pixels (ring by ring),
 * P = (Y − (1 − m)·R)/m is the paint's own light at the very edge, which the fill from inside only
 * guesses. S keeps the filled value (at most P), D takes the rest. Only where m ≥ UNMIX_MIN_PAINT:
 * below, the division would magnify the error in R, and the filled values stay. Wide partly painted
 * areas (no full and no empty mask within 2 px: paint seen through glass, m the glass's transmission)
 * are unmixed at any m, with the rest taken whole from the unpainted glass beside: P = (Y − R)/m.
 */
function unmixEdges(v: PhotoView, y: Float32Array, yn: number, d: Float32Array, s: Float32Array): void {
  const n = v.width * v.height;
  const r = new Float32Array(n);
  const state = new Uint8Array(n);
  let any = false;
  for (let i = 0; i < n; i++) {
    const m = v.paint[i]!;
    if (m === 0) {
      state[i] = 1;
      r[i] = y[i]!;
    } else if (m !== 255) {
      state[i] = 2;
      any = true;
    }
  }
  if (!any) return;
  fillFromNeighbours(r, new Float32Array(n), state, v.width, v.height, [NaN, 0]);
  // wide partly painted areas (neither full paint nor none within 2 px) are paint seen through glass
  const near = new Float32Array(n);
  for (let i = 0; i < n; i++) near[i] = v.paint[i] === 0 || v.paint[i] === 255 ? 1 : 0;
  squareFilter(near, v.width, v.height, 2, true);
  for (let i = 0; i < n; i++) {
    const m8 = v.paint[i]!;
    if (m8 === 0 || m8 === 255 || Number.isNaN(r[i]!)) continue;
    const throughGlass = near[i] === 0;
    if (!throughGlass && m8 < UNMIX_MIN_PAINT) continue;
    const m = m8 / 255;
    // at an edge the rest is (1 − m) of the neighbour; through glass it is the glass's own light,
    // which the unpainted glass beside shows whole
    const rest = throughGlass ? r[i]! : (1 - m) * r[i]!;
    const p = Math.max(0, Math.min(1, (y[i]! - rest) / m));
    const si = Math.min(s[i]!, p);
    let di = (p - si) / yn;
    di = di < 0 ? 0 : di > 1 ? 1 : di;
    d[i] = di;
    s[i] = Math.max(0, p - yn * di);
  }
}

/**
 * The neutral paint when the shoot did not record it: the paint's own colour (per-channel ratio to its
 * luminance, measured on its light without the highlights), scaled so that D reaches 1 only at the
 * brightest 0.5 % of the paint. Its scale does not change a render (calibration normalises D); it
 * only keeps D inside 0..1.
 */
export function estimateNeutral(views: { v: PhotoView; hl: Highlights }[]): Rgb {
  const ratios: [number[], number[], number[]] = [[], [], []];
  const lights: number[] = [];
  for (const { v, hl } of views) {
    const n = v.width * v.height;
    const step = Math.max(1, Math.floor(n / 400_000));
    for (let i = 0; i < n; i += step) {
      if (v.paint[i] !== 255) continue;
      const s = hl.s[i]!;
      if (Number.isNaN(s)) continue;
      const l = hl.y[i]! - s;
      if (l <= 0.02) continue;
      lights.push(l);
      for (let c = 0; c < 3; c++) ratios[c]!.push((SRGB8_TO_LINEAR[v.base[i * 3 + c]!]! - s) / l);
    }
  }
  if (lights.length < 16) throw new Error('too little fully painted area to estimate the neutral paint');
  const med = (a: number[]) => a.sort((p, q) => p - q)[a.length >> 1]!;
  const ratio = ratios.map(med) as Rgb;
  const lum = LUMA[0] * ratio[0] + LUMA[1] * ratio[1] + LUMA[2] * ratio[2];
  lights.sort((p, q) => p - q);
  const top = lights[Math.min(lights.length - 1, Math.floor(lights.length * 0.995))]!;
  let t = ratio.map((c) => (Math.max(0, c) / lum) * top) as Rgb;
  const m = Math.max(...t);
  if (m > 1) t = t.map((c) => c / m) as Rgb;
  return t;
}

// ---------------------------------------------------------------------------------------------
// The backdrop: a vertical linear gradient in linear light.

export interface BackdropRows {
  /** Row position 0 (first row) .. 1 (last row). */
  t: number[];
  rgb: Rgb[];
  weight: number[];
}

/**
 * Per-row medians of the backdrop pixels: where the coverage matte is 0, or without a matte, outside
 * the paint mask's bounding box grown by 2 % of the width (outside the paint alone would count
 * glass and tyres as backdrop).
 */
export function backdropRows(v: PhotoView): BackdropRows {
  const { width: w, height: h } = v;
  let box: [number, number, number, number] | null = null;
  if (!v.coverage) {
    let x0 = w;
    let y0 = h;
    let x1 = -1;
    let y1 = -1;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (v.paint[y * w + x] === 0) continue;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
    const g = Math.round(0.02 * w);
    box = x1 < 0 ? null : [x0 - g, y0 - g, x1 + g, y1 + g];
  }
  const out: BackdropRows = { t: [], rgb: [], weight: [] };
  const ch: [number[], number[], number[]] = [[], [], []];
  for (let y = 0; y < h; y++) {
    ch[0].length = ch[1].length = ch[2].length = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (v.coverage) {
        if (v.coverage[i] !== 0) continue;
      } else if (box && x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3]) continue;
      for (let c = 0; c < 3; c++) ch[c]!.push(SRGB8_TO_LINEAR[v.base[i * 3 + c]!]!);
    }
    if (ch[0].length < 8) continue;
    const med = (a: number[]) => a.sort((p, q) => p - q)[a.length >> 1]!;
    out.t.push(h > 1 ? y / (h - 1) : 0);
    out.rgb.push([med(ch[0]), med(ch[1]), med(ch[2])]);
    out.weight.push(ch[0].length);
  }
  return out;
}

/** Weighted least squares of v(t) = top + (bottom − top)·t over all views' rows. */
export function fitBackdrop(rows: BackdropRows[]): { top: Rgb; bottom: Rgb } | null {
  let sw = 0;
  let st = 0;
  let stt = 0;
  const sv = [0, 0, 0];
  const stv = [0, 0, 0];
  for (const r of rows) {
    for (let k = 0; k < r.t.length; k++) {
      const w = r.weight[k]!;
      const t = r.t[k]!;
      sw += w;
      st += w * t;
      stt += w * t * t;
      for (let c = 0; c < 3; c++) {
        sv[c]! += w * r.rgb[k]![c]!;
        stv[c]! += w * t * r.rgb[k]![c]!;
      }
    }
  }
  if (sw === 0) return null;
  const det = sw * stt - st * st;
  const top: Rgb = [0, 0, 0];
  const bottom: Rgb = [0, 0, 0];
  const clamp = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 10000) / 10000;
  for (let c = 0; c < 3; c++) {
    let a: number;
    let b: number;
    if (Math.abs(det) < 1e-9 * sw * sw) {
      a = sv[c]! / sw; // one row only: a flat backdrop
      b = 0;
    } else {
      b = (sw * stv[c]! - st * sv[c]!) / det;
      a = (sv[c]! - b * st) / sw;
    }
    top[c] = clamp(a);
    bottom[c] = clamp(a + b);
  }
  return { top, bottom };
}

// ---------------------------------------------------------------------------------------------
// The photographed input folder.

const point = z.tuple([z.number().finite(), z.number().finite()]);
const inputViewSchema = z
  .object({
    width: z.number().int().positive().max(MAX_LAYER_WIDTH),
    height: z.number().int().positive().max(MAX_LAYER_WIDTH),
    plate_quad: z.union([z.tuple([point, point, point, point]), z.null()]).optional(),
    shadow: z.boolean().optional(),
    coverage: z.boolean().optional(),
  })
  .strict();
const inputSetSchema = z
  .object({
    id: z.string().regex(SET_ID_RE, 'must be lower-case letters, digits, "-" or "_" (at most 64)'),
    revision: z.union([z.string().min(1), z.number()]).transform((r) => String(r)),
    neutral_paint: z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'must be #RRGGBB').optional(),
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

const PNG = { compressionLevel: 9, adaptiveFiltering: true } as const;

/**
 * Reads a photographed set from `inDir` and writes it as an asset-format-2 set to `outDir` (whose
 * folder name must be the set id). Throws AssetSetError naming the file at fault. Writes into a
 * staging folder beside `outDir` and renames it into place only when the loader accepts it.
 */
export async function splitPhotographedSet(inDir: string, outDir: string, opts: SplitSetOptions = {}): Promise<SplitReport> {
  inDir = path.resolve(inDir);
  outDir = path.resolve(outDir);
  const setFile = path.join(inDir, 'set.json');
  const input = await readSetJson(setFile, inputSetSchema);
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
    quad: unknown;
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
  const viewsJson: Record<string, unknown> = {};
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
      const grey = (data: Uint8Array) => sharp(data, { raw: { width: w, height: h, channels: 1 } }).toColourspace('b-w').png(PNG);
      // the photographed layers go in unchanged: copied when already in the stored form
      const keep = async (name: string, channels: number, data: () => Promise<Uint8Array>) => {
        const from = path.join(inDir, l.id, `${name}.png`);
        const m = await sharp(from).metadata();
        const to = path.join(dir, `${name}.png`);
        if (m.format === 'png' && m.channels === channels && m.depth === 'uchar' && !m.hasAlpha) await fs.copyFile(from, to);
        else await sharp(await data(), { raw: { width: w, height: h, channels: channels as 1 | 3 } }).toColourspace(channels === 1 ? 'b-w' : 'srgb').png(PNG).toFile(to);
      };
      await keep('base', 3, async () => l.v.base);
      await keep('paint', 1, async () => l.v.paint);
      await grey(d8).toFile(path.join(dir, 'diffuse.png'));
      await grey(s8).toFile(path.join(dir, 'specular.png'));
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
      format: 2,
      revision: report.revision,
      source: {
        ...(input.source ?? {}),
        kind: 'photographed',
        split: {
          method: 'white top-hat of the luminance inside the paint mask (renderer/assets/photo-split.ts)',
          version: SPLIT_VERSION,
          input_revision: input.revision,
          neutral_paint: estimated ? 'estimated from the paint' : 'given',
        },
      },
      neutral_paint: hex,
      ...(backdrop ? { backdrop } : {}),
      views: viewsJson,
    };
    await fs.writeFile(path.join(staging, 'set.json'), `${JSON.stringify(setJson, null, 2)}\n`);
    await readSetMeta(staging); // the renderer's loader must accept what we wrote
    await fs.rm(outDir, { recursive: true, force: true });
    await fs.rename(staging, outDir);
  } finally {
    await fs.rm(path.dirname(staging), { recursive: true, force: true });
  }
  return report;
}

/**
 * Splits a photographed set into a fresh temporary folder (for `assets import`): returns the set's
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
    if (typeof j.id === 'string' && SET_ID_RE.test(j.id)) id = j.id;
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [inDir, outDir] = process.argv.slice(2);
  if (!inDir || !outDir) {
    process.stderr.write('usage: photo-split.ts <photographed-set-dir> <out-dir>\n');
    process.exit(2);
  }
  try {
    const r = await splitPhotographedSet(inDir, outDir, { log: (l) => process.stderr.write(`${l}\n`) });
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
