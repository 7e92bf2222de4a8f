import { LINEAR_LUT_SIZE, LINEAR_TO_SRGB8, LUMA, SRGB8_TO_LINEAR } from '../../color/srgb.ts';
import { PLATE_WHITE_LINEAR } from '../backend.ts';

/**
 * The compositing formula of docs/renderer.md on raw buffers, one pass, linear light, encoded to
 * sRGB once. Pure and allocation-free so that it runs the same in a worker thread or inline.
 */
export interface KernelInput {
  width: number;
  height: number;
  base: Uint8Array;
  paint: Uint8Array;
  diffuse: Uint16Array;
  specular: Uint16Array;
  shadow: Uint8Array | null;
  color: [number, number, number];
  plate: {
    data: Float32Array;
    tw: number;
    th: number;
    pw: number;
    ph: number;
    pad: number;
    hinv: number[];
    bbox: [number, number, number, number];
  } | null;
  out: Uint8Array;
}

const L = SRGB8_TO_LINEAR;
const TO8 = LINEAR_TO_SRGB8;
const Q = LINEAR_LUT_SIZE - 1;
const INV16 = 1 / 65535;
const INV8 = 1 / 255;

function enc(c: number): number {
  return c <= 0 ? 0 : c >= 1 ? TO8[Q]! : TO8[(c * Q + 0.5) | 0]!;
}

export function compositeKernel(k: KernelInput): void {
  const { width, height, base, paint, diffuse, specular, shadow, out } = k;
  const [tr, tg, tb] = k.color;
  const n = width * height;
  for (let i = 0; i < n; i++) {
    const m8 = paint[i]!;
    const s8 = shadow ? shadow[i]! : 0;
    const o = i * 3;
    if (m8 === 0 && s8 === 0) {
      out[o] = base[o]!;
      out[o + 1] = base[o + 1]!;
      out[o + 2] = base[o + 2]!;
      continue;
    }
    let r = L[base[o]!]!;
    let g = L[base[o + 1]!]!;
    let b = L[base[o + 2]!]!;
    if (m8 !== 0) {
      const m = m8 * INV8;
      const D = diffuse[i]! * INV16;
      const S = specular[i]! * INV16;
      r += (tr * D + S - r) * m;
      g += (tg * D + S - g) * m;
      b += (tb * D + S - b) * m;
    }
    if (s8 !== 0) {
      const f = 1 - s8 * INV8;
      r *= f;
      g *= f;
      b *= f;
    }
    out[o] = enc(r);
    out[o + 1] = enc(g);
    out[o + 2] = enc(b);
  }
  if (k.plate) plateKernel(k);
}

/** The plate: inverse homography per pixel, bilinear (clamp-to-edge) sample of the padded texture. */
function plateKernel(k: KernelInput): void {
  const p = k.plate!;
  const { width, base, out } = k;
  const { data, tw, th, pw, ph, pad } = p;
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = p.hinv as [number, number, number, number, number, number, number, number, number];
  const [x0, y0, x1, y1] = p.bbox;
  for (let y = y0; y < y1; y++) {
    const py = y + 0.5;
    for (let x = x0; x < x1; x++) {
      const px = x + 0.5;
      const w = h6 * px + h7 * py + h8;
      if (w <= 0) continue;
      const u = (h0 * px + h1 * py + h2) / w;
      const v = (h3 * px + h4 * py + h5) / w;
      const cx = pad + u * pw - 0.5;
      const cy = pad + v * ph - 0.5;
      if (cx <= -1 || cy <= -1 || cx >= tw || cy >= th) continue;
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
      if (a <= 0) continue;
      const o = (y * width + x) * 3;
      // the light at the plate comes from the base shot's blank plate
      const lum = LUMA[0] * L[base[o]!]! + LUMA[1] * L[base[o + 1]!]! + LUMA[2] * L[base[o + 2]!]!;
      let light = lum / PLATE_WHITE_LINEAR;
      if (light > 1) light = 1;
      for (let c = 0; c < 3; c++) {
        const pc = data[i00 + c]! * w00 + data[i10 + c]! * w10 + data[i01 + c]! * w01 + data[i11 + c]! * w11;
        // out is already encoded; decode the composited value back through the exact table
        const cur = L[out[o + c]!]!;
        out[o + c] = enc(cur * (1 - a) + pc * light);
      }
    }
  }
}
