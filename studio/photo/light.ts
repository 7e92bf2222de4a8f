import { LUMA, SRGB8_TO_LINEAR } from '../../shared/color/srgb.ts';
import { domainOpening, maskedBoxMean, squareFilter } from './morphology.ts';

// The split of one view's light into diffuse and specular (split.ts, the module comment), and
// the neutral paint estimated across views.

/** The structuring element's half-size is the image width divided by this. */
export const DEFAULT_RADIUS_DIVISOR = 60;
/** The opening is smoothed by two box means of half-size radius · DEFAULT_SMOOTH. */
export const DEFAULT_SMOOTH = 0.5;

export type Rgb = [number, number, number];

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
