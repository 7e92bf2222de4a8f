import { LUMA, SRGB8_TO_LINEAR } from '../../../shared/color/srgb.ts';
import { PLATE_WHITE_LINEAR, SHOULDER_KNEE } from '../backend.ts';
import type { LayerArena } from './arena.ts';
import type { LevelEdges } from './level-tables.ts';
import type { ActiveRuns, PlaneSet } from '../../assets/layers.ts';
import { encodeSrgb8 } from '../../color/srgb8.ts';

// The kernels' input, and the formula per pixel in JavaScript for what the wasm kernel hands back:
// plate pixels and transparent pictures (wasm-kernel.ts). The whole picture in JavaScript, the
// reference both are tested against, is test/support/reference-kernel.ts.

/** The layers' planes; `shadow` and `coverage` null where the render does not use them. */
export interface KernelInput extends PlaneSet {
  width: number;
  height: number;
  /** Where the picture differs from its start (assets/layers.ts `activeRuns`); null = every pixel. */
  runs: ActiveRuns | null;
  /**
   * The base with `shadow` applied (level-extras.ts `shadowedBase`): with it, rows start as this picture
   * and unpainted pixels are left as they are, so `runs` may cover paint only. null (no shadow, or
   * none made): rows start as the base, and `runs` must cover the shadow too (assets/layers.ts layersOf).
   */
  shadowedBase: Uint8Array | null;
  /** The shared WebAssembly memory the planes are views of (arena.ts `allocPlanes`): the wasm kernel reads them in place. */
  arena?: LayerArena | null;
  color: [number, number, number];
  neutral: [number, number, number];
  gain: number;
  floor: number;
  /** Transparent background: the backdrop's linear RGB at the first and last row. */
  backdrop: { top: [number, number, number]; bottom: [number, number, number] } | null;
  plate: {
    data: Float32Array;
    tw: number;
    th: number;
    pw: number;
    ph: number;
    pad: number;
    hinv: number[];
    bbox: [number, number, number, number];
    /** The plate's pixels precomputed for these layers (plate-overlay.ts); null: sampled per pixel (generalRow). */
    overlay?: PlateOverlay | null;
  } | null;
  /** RGB (3 bytes a pixel), or RGBA with straight alpha when `backdrop` is set. */
  out: Uint8Array;
  /**
   * `out` is the arena's output picture (LayerArena.output, opaque only): the wasm kernel writes the
   * spans into it in place. false: anywhere else, the spans written into a scratch row and copied.
   */
  outInArena?: boolean;
  /**
   * Where in the arena this render's palette colours are (one of LevelPalette.colours, filled by
   * wasm-kernel.ts `paletteColours`): the wasm kernel takes fully painted pixels from there. 0 or
   * absent: none, every pixel computed.
   */
  paletteAt?: number;
  /**
   * The level's edge list (level-tables.ts LevelEdges) as it stood when the composite started (so every
   * band agrees): the wasm kernel takes partly painted pixels' inputs from it, opaque rows only.
   * null or absent: from the planes.
   */
  edges?: LevelEdges | null;
}

/**
 * The plate over one level, computed once per plate raster and level (plate-overlay.ts), for the
 * opaque rows: what `generalRow` would do in the plate's box, without sampling the plate again.
 * Pixels the plate does not touch are left to the runs; pixels it covers fully (alpha exactly 1) get
 * their bytes, which do not depend on the paint; the plate's edge keeps its alpha and lit colour, and
 * the paint under it is computed per render. Rows are relative to `y0`; each list's entries of row r
 * are [start[r], start[r + 1]). Shared memory, so a band's message carries references.
 */
export interface PlateOverlay {
  y0: number;
  rows: number;
  solidStart: Int32Array;
  solidIdx: Int32Array;
  /** RGB bytes, 3 per solid pixel. */
  solidRgb: Uint8Array;
  edgeStart: Int32Array;
  edgeIdx: Int32Array;
  edgeA: Float64Array;
  /** The plate's premultiplied colour times its light, 3 per edge pixel. */
  edgeLit: Float64Array;
}

const L = SRGB8_TO_LINEAR;
const enc = encodeSrgb8;
const INV16 = 1 / 65535;
const INV8 = 1 / 255;
const K = SHOULDER_KNEE;
const INV_1K = 1 / (1 - K);

/** Linear RGB of one pixel before the shadow and the plate: the whole formula, as docs/asset-format.md ("Compositing") writes it once. */
const px = new Float64Array(3);
function paintPixel(k: KernelInput, i: number): void {
  const bi = i * 3;
  let r = L[k.base[bi]!]!;
  let g = L[k.base[bi + 1]!]!;
  let b = L[k.base[bi + 2]!]!;
  const m8 = k.paint[i]!;
  if (m8 !== 0) {
    const m = m8 * INV8;
    const D = k.diffuse[i]! * INV16;
    const S = k.specular[i]! * INV16;
    const rest = 1 - m;
    const n = k.neutral; // indexed, not destructured: this runs per pixel
    r -= m * (n[0] * D + S);
    g -= m * (n[1] * D + S);
    b -= m * (n[2] * D + S);
    r = r < 0 ? 0 : r > rest ? rest : r;
    g = g < 0 ? 0 : g > rest ? rest : g;
    b = b < 0 ? 0 : b > rest ? rest : b;
    const Dc = k.gain * D;
    const Sc = S > k.floor ? S - k.floor : 0;
    let cr = k.color[0] * Dc + Sc;
    let cg = k.color[1] * Dc + Sc;
    let cb = k.color[2] * Dc + Sc;
    const mx = cr > cg ? (cr > cb ? cr : cb) : cg > cb ? cg : cb;
    if (mx > K) {
      const x = (mx - K) * INV_1K;
      const f = (K + ((1 - K) * x) / (1 + x)) / mx;
      cr *= f;
      cg *= f;
      cb *= f;
    }
    r += m * cr;
    g += m * cg;
    b += m * cb;
  }
  px[0] = r;
  px[1] = g;
  px[2] = b;
}

/** The whole formula at pixel i, then the floor shadow, into `px` (linear): an opaque pixel before the plate. */
function shadedPixel(k: KernelInput, i: number): void {
  paintPixel(k, i);
  const shadow = k.shadow;
  if (shadow !== null && shadow[i]! !== 0) {
    const f = 1 - shadow[i]! * INV8;
    px[0] = px[0]! * f;
    px[1] = px[1]! * f;
    px[2] = px[2]! * f;
  }
}

/** Pixels [xa, xb) of an opaque row the plate may touch: the whole formula, then the plate, then one encode. */
export function generalRow(k: KernelInput, y: number, xa: number, xb: number): void {
  const { width, out } = k;
  for (let x = xa; x < xb; x++) {
    const i = y * width + x;
    shadedPixel(k, i);
    plateOver(k, x, y, i);
    const o = i * 3;
    out[o] = enc(px[0]!);
    out[o + 1] = enc(px[1]!);
    out[o + 2] = enc(px[2]!);
  }
}

/**
 * Row y of an opaque picture under the plate, from its overlay: the plate's pixels get the bytes
 * generalRow gives them; the box's pixels the plate does not touch keep what the runs (or the start)
 * gave them, where generalRow would compute them again with the whole formula (the same value, but
 * in the wasm kernel's painted pixels, in single precision).
 */
export function overlayRow(k: KernelInput, ov: PlateOverlay, y: number): void {
  const r = y - ov.y0;
  if (r < 0 || r >= ov.rows) return;
  const out = k.out;
  const rgb = ov.solidRgb;
  const idx = ov.solidIdx;
  // a row's solid pixels are one or two runs (the plate is a convex quad): each copied at once
  for (let j = ov.solidStart[r]!, e = ov.solidStart[r + 1]!; j < e; ) {
    let j1 = j + 1;
    while (j1 < e && idx[j1] === idx[j1 - 1]! + 1) j1++;
    out.set(rgb.subarray(3 * j, 3 * j1), idx[j]! * 3);
    j = j1;
  }
  const lit = ov.edgeLit;
  for (let j = ov.edgeStart[r]!, e = ov.edgeStart[r + 1]!; j < e; j++) {
    const i = ov.edgeIdx[j]!;
    shadedPixel(k, i);
    const a = ov.edgeA[j]!;
    const o = i * 3;
    out[o] = enc(px[0]! * (1 - a) + lit[3 * j]!);
    out[o + 1] = enc(px[1]! * (1 - a) + lit[3 * j + 1]!);
    out[o + 2] = enc(px[2]! * (1 - a) + lit[3 * j + 2]!);
  }
}

/** Pixels [xa, xb) of row y with the transparent background (the wasm kernel's plate pixels too). */
export function transparentRange(k: KernelInput, y: number, xa: number, xb: number): void {
  const { width, height, shadow, coverage, out } = k;
  const bd = k.backdrop!;
  const t = height > 1 ? y / (height - 1) : 0;
  const gr = bd.top[0] + (bd.bottom[0] - bd.top[0]) * t;
  const gg = bd.top[1] + (bd.bottom[1] - bd.top[1]) * t;
  const gb = bd.top[2] + (bd.bottom[2] - bd.top[2]) * t;
  for (let x = xa, i = y * width + xa; x < xb; x++, i++) {
    const o = i * 4;
    const a = coverage![i]! * INV8;
    const s8 = shadow === null ? 0 : shadow[i]!;
    const ra = 1 - a;
    const A = a + ra * s8 * INV8;
    if (A <= 0) {
      px[0] = 0;
      px[1] = 0;
      px[2] = 0;
    } else {
      paintPixel(k, i);
      // the car premultiplied: the backdrop seen at partial coverage taken out
      let pr = px[0]! - ra * gr;
      let pg = px[1]! - ra * gg;
      let pb = px[2]! - ra * gb;
      pr = pr < 0 ? 0 : pr > a ? a : pr;
      pg = pg < 0 ? 0 : pg > a ? a : pg;
      pb = pb < 0 ? 0 : pb > a ? a : pb;
      const inv = 1 / A;
      px[0] = pr * inv;
      px[1] = pg * inv;
      px[2] = pb * inv;
    }
    // like the gl shader, the plate goes over whatever alpha the pixel has
    plateOver(k, x, y, i);
    out[o] = enc(px[0]!);
    out[o + 1] = enc(px[1]!);
    out[o + 2] = enc(px[2]!);
    out[o + 3] = A >= 1 ? 255 : Math.round(A * 255);
  }
}

/**
 * The plate at output pixel (x, y): inverse homography, bilinear (clamp-to-edge) sample of the padded
 * premultiplied texture, into `plateTexel` (premultiplied RGB, then alpha). False where it has no alpha.
 */
export const plateTexel = new Float64Array(4);
export function samplePlate(p: NonNullable<KernelInput['plate']>, x: number, y: number): boolean {
  const bb = p.bbox; // indexed, not destructured: this runs per pixel
  if (x < bb[0] || y < bb[1] || x >= bb[2] || y >= bb[3]) return false;
  const h = p.hinv;
  const cxp = x + 0.5;
  const cyp = y + 0.5;
  const w = h[6]! * cxp + h[7]! * cyp + h[8]!;
  if (w <= 0) return false;
  const u = (h[0]! * cxp + h[1]! * cyp + h[2]!) / w;
  const v = (h[3]! * cxp + h[4]! * cyp + h[5]!) / w;
  const data = p.data;
  const tw = p.tw;
  const th = p.th;
  const cx = p.pad + u * p.pw - 0.5;
  const cy = p.pad + v * p.ph - 0.5;
  if (cx <= -1 || cy <= -1 || cx >= tw || cy >= th) return false;
  const ix = Math.floor(cx);
  const iy = Math.floor(cy);
  const fx = cx - ix;
  const fy = cy - iy;
  const xa = ix < 0 ? 0 : ix >= tw ? tw - 1 : ix;
  const xb = ix + 1 < 0 ? 0 : ix + 1 >= tw ? tw - 1 : ix + 1;
  const ya = iy < 0 ? 0 : iy >= th ? th - 1 : iy;
  const yb = iy + 1 < 0 ? 0 : iy + 1 >= th ? th - 1 : iy + 1;
  const i00 = (ya * tw + xa) * 4;
  const i10 = (ya * tw + xb) * 4;
  const i01 = (yb * tw + xa) * 4;
  const i11 = (yb * tw + xb) * 4;
  const w00 = (1 - fx) * (1 - fy);
  const w10 = fx * (1 - fy);
  const w01 = (1 - fx) * fy;
  const w11 = fx * fy;
  const a = data[i00 + 3]! * w00 + data[i10 + 3]! * w10 + data[i01 + 3]! * w01 + data[i11 + 3]! * w11;
  if (a <= 0) return false;
  for (let c = 0; c < 3; c++) plateTexel[c] = data[i00 + c]! * w00 + data[i10 + c]! * w10 + data[i01 + c]! * w01 + data[i11 + c]! * w11;
  plateTexel[3] = a;
  return true;
}

/** The plate's light at base pixel i: the base shot's luminance at the blank plate, relative to a lit white plate, at most 1. */
export function plateLight(base: Uint8Array, i: number): number {
  const bi = i * 3;
  const lum = LUMA[0] * L[base[bi]!]! + LUMA[1] * L[base[bi + 1]!]! + LUMA[2] * L[base[bi + 2]!]!;
  const light = lum / PLATE_WHITE_LINEAR;
  return light > 1 ? 1 : light;
}

/** The plate over `px` (linear, in place) at output pixel (x, y), lit by the base shot's blank plate. */
function plateOver(k: KernelInput, x: number, y: number, i: number): void {
  const p = k.plate;
  if (p === null || !samplePlate(p, x, y)) return;
  const a = plateTexel[3]!;
  const light = plateLight(k.base, i);
  for (let c = 0; c < 3; c++) px[c] = px[c]! * (1 - a) + plateTexel[c]! * light;
}
