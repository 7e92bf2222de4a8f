import { LINEAR_LUT_SIZE, LINEAR_TO_SRGB8, LUMA, SRGB8_TO_LINEAR } from '../../color/srgb.ts';
import { PLATE_WHITE_LINEAR, SHOULDER_KNEE } from '../backend.ts';

export interface KernelInput {
  width: number;
  height: number;
  base: Uint8Array;
  paint: Uint8Array;
  diffuse: Uint16Array;
  specular: Uint16Array;
  shadow: Uint8Array | null;
  coverage: Uint8Array | null;
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
  } | null;
  /** RGB (3 bytes a pixel), or RGBA with straight alpha when `backdrop` is set. */
  out: Uint8Array;
}

const L = SRGB8_TO_LINEAR;
const TO8 = LINEAR_TO_SRGB8;
const Q = LINEAR_LUT_SIZE - 1;
const INV16 = 1 / 65535;
const INV8 = 1 / 255;
const K = SHOULDER_KNEE;

function enc(c: number): number {
  return c <= 0 ? 0 : c >= 1 ? TO8[Q]! : TO8[(c * Q + 0.5) | 0]!;
}

/** The hue-preserving highlight roll-off of docs/asset-format.md: the factor that scales c. */
function shoulder(mx: number): number {
  if (mx <= K) return 1;
  const x = (mx - K) / (1 - K);
  return (K + ((1 - K) * x) / (1 + x)) / mx;
}

/**
 * docs/asset-format.md, "Compositing", per pixel in linear light, encoded to sRGB once. The plate
 * goes on after (plateKernel). Pure and allocation-free so that it runs the same in a worker thread
 * or inline.
 */
export function compositeKernel(k: KernelInput): void {
  const { width, height, base, paint, diffuse, specular, shadow, coverage, out } = k;
  const [tr, tg, tb] = k.color;
  const [nr, ng, nb] = k.neutral;
  const gain = k.gain;
  const floor = k.floor;
  const bd = k.backdrop;
  const alpha = bd !== null && coverage !== null;
  const ch = alpha ? 4 : 3;
  for (let y = 0; y < height; y++) {
    const t = height > 1 ? y / (height - 1) : 0;
    const gr = bd ? bd.top[0] + (bd.bottom[0] - bd.top[0]) * t : 0;
    const gg = bd ? bd.top[1] + (bd.bottom[1] - bd.top[1]) * t : 0;
    const gb = bd ? bd.top[2] + (bd.bottom[2] - bd.top[2]) * t : 0;
    for (let i = y * width, end = i + width; i < end; i++) {
      const m8 = paint[i]!;
      const s8 = shadow ? shadow[i]! : 0;
      const o = i * ch;
      const bi = i * 3;
      if (!alpha && m8 === 0 && s8 === 0) {
        out[o] = base[bi]!;
        out[o + 1] = base[bi + 1]!;
        out[o + 2] = base[bi + 2]!;
        continue;
      }
      let r = L[base[bi]!]!;
      let g = L[base[bi + 1]!]!;
      let b = L[base[bi + 2]!]!;
      if (m8 !== 0) {
        const m = m8 * INV8;
        const D = diffuse[i]! * INV16;
        const S = specular[i]! * INV16;
        // the pixel without its neutral paint, bounded by what the rest of the pixel can hold
        const rest = 1 - m;
        r -= m * (nr * D + S);
        g -= m * (ng * D + S);
        b -= m * (nb * D + S);
        r = r < 0 ? 0 : r > rest ? rest : r;
        g = g < 0 ? 0 : g > rest ? rest : g;
        b = b < 0 ? 0 : b > rest ? rest : b;
        const Dc = gain * D;
        const Sc = S > floor ? S - floor : 0;
        let cr = tr * Dc + Sc;
        let cg = tg * Dc + Sc;
        let cb = tb * Dc + Sc;
        const f = shoulder(cr > cg ? (cr > cb ? cr : cb) : cg > cb ? cg : cb);
        cr *= f;
        cg *= f;
        cb *= f;
        r += m * cr;
        g += m * cg;
        b += m * cb;
      }
      if (alpha) {
        const a = coverage![i]! * INV8;
        const ra = 1 - a;
        // the car premultiplied: the backdrop seen at partial coverage taken out
        let pr = r - ra * gr;
        let pg = g - ra * gg;
        let pb = b - ra * gb;
        pr = pr < 0 ? 0 : pr > a ? a : pr;
        pg = pg < 0 ? 0 : pg > a ? a : pg;
        pb = pb < 0 ? 0 : pb > a ? a : pb;
        const A = a + ra * s8 * INV8;
        if (A <= 0) {
          out[o] = 0;
          out[o + 1] = 0;
          out[o + 2] = 0;
          out[o + 3] = 0;
          continue;
        }
        const inv = 1 / A;
        out[o] = enc(pr * inv);
        out[o + 1] = enc(pg * inv);
        out[o + 2] = enc(pb * inv);
        out[o + 3] = A >= 1 ? 255 : Math.round(A * 255);
        continue;
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
  }
  if (k.plate) plateKernel(k, ch);
}

/** The plate: inverse homography per pixel, bilinear (clamp-to-edge) sample of the padded texture. */
function plateKernel(k: KernelInput, ch: number): void {
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
      const bi = (y * width + x) * 3;
      const o = (y * width + x) * ch;
      // the light at the plate comes from the base shot's blank plate
      const lum = LUMA[0] * L[base[bi]!]! + LUMA[1] * L[base[bi + 1]!]! + LUMA[2] * L[base[bi + 2]!]!;
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
