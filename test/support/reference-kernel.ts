import { SRGB8_TO_LINEAR } from '../../shared/color/srgb.ts';
import { SHOULDER_KNEE } from '../../renderer/backends/backend.ts';
import { generalRow, transparentRange, type KernelInput } from '../../renderer/backends/cpu/kernel.ts';
import { SHADED, encodeSrgb8 } from '../../renderer/color/srgb8.ts';

// The reference the cpu backend's kernels are tested against: the whole picture in JavaScript,
// opaque rows included, from the same per-pixel functions the renderer's kernel.ts keeps for the
// pixels the wasm kernel does not compute.

const L = SRGB8_TO_LINEAR;
const enc = encodeSrgb8;
const INV16 = 1 / 65535;
const INV8 = 1 / 255;
const K = SHOULDER_KNEE;
const INV_1K = 1 / (1 - K);

/**
 * docs/asset-format.md, "Compositing", per pixel in linear light, encoded to sRGB once, plate
 * included: every pixel of the picture in JavaScript. The renderer runs the wasm kernel
 * (wasm-kernel.ts), which hands only plate and transparent pixels to kernel.ts; this is what its
 * bytes are checked against.
 */
export function compositeKernel(k: KernelInput): void {
  compositeRows(k, 0, k.height);
}

/**
 * Rows [y0, y1) of the picture: the cpu backend gives each worker a band. With the studio backdrop,
 * the band starts as a copy of the base, or of the shadowed base with the shadow (one memcpy), and
 * only the runs are computed: fully painted pixels never read the base (R is 0 there), unpainted ones
 * keep their start (or, with no shadowed base, take one table lookup per channel in the shadow), and
 * only the paint's edge runs the whole formula.
 */
export function compositeRows(k: KernelInput, y0: number, y1: number): void {
  if (k.backdrop !== null && k.coverage !== null) transparentRows(k, y0, y1);
  else opaqueRows(k, y0, y1);
}

function opaqueRows(k: KernelInput, y0: number, y1: number): void {
  const { width, base, paint, diffuse, specular, out } = k;
  const shadow = k.shadow;
  const tr = k.color[0], tg = k.color[1], tb = k.color[2];
  const nr = k.neutral[0], ng = k.neutral[1], nb = k.neutral[2];
  const gain = k.gain;
  const floor = k.floor;
  const pb = k.plate ? k.plate.bbox : null;
  const rowStart = k.runs ? k.runs.rowStart : null;
  const xs = k.runs ? k.runs.xs : null;
  // the band as its start, in one copy; then only the runs are computed
  const preShadowed = shadow !== null && k.shadowedBase !== null;
  const start = preShadowed ? k.shadowedBase! : base;
  out.set(start.subarray(y0 * width * 3, y1 * width * 3), y0 * width * 3);
  for (let y = y0; y < y1; y++) {
    const row = y * width;
    const r0 = rowStart ? rowStart[y]! : 0;
    const r1 = rowStart ? rowStart[y + 1]! : 1; // no runs known: the whole row is one
    for (let q = r0; q < r1; q++) {
      const end = row + (xs ? xs[2 * q + 1]! : width);
      for (let i = row + (xs ? xs[2 * q]! : 0); i < end; i++) {
        const m8 = paint[i]!;
        const o = i * 3;
        if (m8 === 0) {
          if (preShadowed) continue;
          const s8 = shadow === null ? 0 : shadow[i]!;
          if (s8 !== 0) {
            const sh = s8 << 8;
            out[o] = SHADED[sh | base[o]!]!;
            out[o + 1] = SHADED[sh | base[o + 1]!]!;
            out[o + 2] = SHADED[sh | base[o + 2]!]!;
          }
          continue;
        }
        const D = diffuse[i]! * INV16;
        const S = specular[i]! * INV16;
        const Dc = gain * D;
        const Sc = S > floor ? S - floor : 0;
        let r = tr * Dc + Sc;
        let g = tg * Dc + Sc;
        let b = tb * Dc + Sc;
        const mx = r > g ? (r > b ? r : b) : g > b ? g : b;
        if (mx > K) {
          const x = (mx - K) * INV_1K;
          const f = (K + ((1 - K) * x) / (1 + x)) / mx;
          r *= f;
          g *= f;
          b *= f;
        }
        if (m8 !== 255) {
          // the pixel without its neutral paint, bounded by what the rest of the pixel can hold
          const m = m8 * INV8;
          const rest = 1 - m;
          let br = L[base[o]!]! - m * (nr * D + S);
          let bg = L[base[o + 1]!]! - m * (ng * D + S);
          let bb = L[base[o + 2]!]! - m * (nb * D + S);
          br = br < 0 ? 0 : br > rest ? rest : br;
          bg = bg < 0 ? 0 : bg > rest ? rest : bg;
          bb = bb < 0 ? 0 : bb > rest ? rest : bb;
          r = br + m * r;
          g = bg + m * g;
          b = bb + m * b;
        }
        if (shadow !== null) {
          const s8 = shadow[i]!;
          if (s8 !== 0) {
            const f = 1 - s8 * INV8;
            r *= f;
            g *= f;
            b *= f;
          }
        }
        out[o] = enc(r);
        out[o + 1] = enc(g);
        out[o + 2] = enc(b);
      }
    }
    // rows the plate crosses: its pixels again with the whole formula, the plate blended before the encode
    if (pb !== null && y >= pb[1] && y < pb[3] && pb[0] < pb[2]) generalRow(k, y, pb[0], pb[2]);
  }
}


function transparentRows(k: KernelInput, y0: number, y1: number): void {
  for (let y = y0; y < y1; y++) transparentRange(k, y, 0, k.width);
}
