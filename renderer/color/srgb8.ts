import { SRGB8_TO_LINEAR, linearToSrgb } from '../../shared/color/srgb.ts';

/**
 * Linear light → 8-bit sRGB, rounded exactly as `round(255 · srgb_encode(c))` (what the gl backend's
 * render target stores), without a 65536-entry table: a table of 4096 buckets gives the code at each
 * bucket's start, and one comparison against the next code's threshold finishes it. Buckets are
 * narrower than the closest two thresholds (near black, 1/(255·12.92)), so a bucket holds at most
 * one. Rounding through a table of linear steps instead (quantise c, then look up) rounded about
 * 1 % of dark values to the wrong code — the gl/cpu parity lost 1–2 dB to that alone.
 */
const BUCKETS = 4096; // a power of two: c · BUCKETS is exact, so the bucket is exact
const LO = new Uint8Array(BUCKETS);
/** THR[k]: the least linear value that encodes to k + 1 (Infinity after 255). */
const THR = new Float64Array(256);
// by bisection on the forward formula down to adjacent doubles, so the table agrees with
// round(255 · linearToSrgb(c)) even where the inverse curve would be an ulp off
for (let k = 0; k < 255; k++) {
  let lo = 0;
  let hi = 1;
  for (;;) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (Math.round(linearToSrgb(mid) * 255) > k) hi = mid;
    else lo = mid;
  }
  THR[k] = hi;
}
THR[255] = Infinity;
for (let i = 0, k = 0; i < BUCKETS; i++) {
  const c = i / BUCKETS;
  while (c >= THR[k]!) k++;
  LO[i] = k;
}

/**
 * THR32[k]: the least single-precision value at or above THR[k], so that for an f32 c, `c >= THR32[k]`
 * is exactly `c >= THR[k]` (the wasm kernel's four-lane path encodes f32 values with it).
 */
const THR32 = new Float32Array(256);
{
  const bits = new Uint32Array(THR32.buffer);
  for (let k = 0; k < 256; k++) {
    THR32[k] = THR[k]!;
    // rounded to nearest, it may have gone below: the next f32 up (positive floats order as their bits)
    if (THR32[k]! < THR[k]!) bits[k]!++;
  }
}

/**
 * LO16[j]: the code at j / 65536, plus 256 where a threshold lies strictly inside [j, j + 1) / 65536
 * (at most one does: the closest two are 1/(255 · 12.92) apart). Elsewhere every value of the bucket
 * has that code, so the wasm kernel's four-lane path encodes with one lookup and compares (THR32) only
 * in the 255 buckets that hold a threshold.
 */
const LO16 = new Uint16Array(65536);
for (let j = 0, k = 0; j < 65536; j++) {
  const c = j / 65536;
  while (c >= THR[k]!) k++;
  LO16[j] = k + (THR[k]! < (j + 1) / 65536 ? 256 : 0);
}

/** The encode's tables, for the WebAssembly kernel (wasm-kernel.ts), which uses the same ones. */
export function encodeTables(): { lo: Uint8Array; thr: Float64Array; thr32: Float32Array; lo16: Uint16Array } {
  return { lo: LO, thr: THR, thr32: THR32, lo16: LO16 };
}

/** `round(255 · srgb_encode(clamp(c, 0, 1)))`. */
export function encodeSrgb8(c: number): number {
  if (c <= 0) return 0;
  if (c >= 1) return 255;
  const v = LO[(c * BUCKETS) | 0]!;
  return c >= THR[v]! ? v + 1 : v;
}

/**
 * SHADED[shadow << 8 | code]: an sRGB code darkened by a floor-shadow opacity, through linear light
 * (`encodeSrgb8(decode(code) · (1 − shadow/255))`): the backdrop under the car's shadow in one lookup.
 */
export const SHADED: Uint8Array = (() => {
  const t = new Uint8Array(65536);
  for (let s = 0; s < 256; s++) {
    const f = 1 - s / 255;
    for (let b = 0; b < 256; b++) t[(s << 8) | b] = encodeSrgb8(SRGB8_TO_LINEAR[b]! * f);
  }
  return t;
})();
