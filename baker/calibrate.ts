/**
 * Fits a view's calibration (docs/asset-format.md, "Calibration"): the gain on D and the floor under
 * S that make the lit mid-tone of the body read as the requested colour. Run once when a set is
 * made (baker, photographed import), never per request.
 */
import { srgbToLinear } from '../shared/color/srgb.ts';

export interface CalibrationInput {
  width: number;
  height: number;
  /** Paint coverage 0..255. */
  paint: Uint8Array;
  /** Linear light, raw (as in the base shot). */
  diffuse: Float32Array;
  specular: Float32Array;
}

export interface ViewCalibration {
  diffuse_gain: number;
  specular_floor: number;
}

/**
 * Bumped whenever the fit changes: every revision of a set whose calibration this file computed ends
 * in `-cal<version>` (calibratedRevision), so a re-fit changes the set's ETags and cache keys.
 */
export const CALIBRATION_VERSION = 2;

/** A set revision with its calibration version: any earlier `-calN` suffix replaced. */
export function calibratedRevision(revision: string): string {
  return `${revision.replace(/-cal\d+$/, '')}-cal${CALIBRATION_VERSION}`;
}

/** Share of the reference region's colour the clear coat's dim reflections may add on black paint. */
const BLACK_LIFT = 0.1;
/**
 * The floor is fitted so that this quantile (not only the median) of black paint's region stays within
 * BLACK_LIFT: on a roof that mirrors the softboxes the region's S is spread wide, and a median fitted
 * exactly would move with the region at another level of the picture.
 */
const FLOOR_QUANTILE = 0.6;
/** The darkest colour the floor is fitted on: the spec's named black. */
const BLACK = srgbToLinear(0x1a / 255);

function quantile(sorted: Float32Array, q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i]!;
}

/**
 * The reference region: paint pixels with full coverage whose D lies between the 25th and 75th
 * percentile of D over those pixels (neither the highlights nor the shadowed sills), and whose S is at
 * most the median S among them (not a reflection of a softbox). Returns pixel indices.
 */
export function referenceRegion(paint: Uint8Array, diffuse: ArrayLike<number>, specular: ArrayLike<number>): Uint32Array {
  let n = 0;
  for (let i = 0; i < paint.length; i++) if (paint[i] === 255) n++;
  const ds = new Float32Array(n);
  n = 0;
  for (let i = 0; i < paint.length; i++) if (paint[i] === 255) ds[n++] = diffuse[i]!;
  ds.sort();
  const lo = quantile(ds, 0.25);
  const hi = quantile(ds, 0.75);
  const lit: number[] = [];
  for (let i = 0; i < paint.length; i++) {
    if (paint[i] !== 255) continue;
    const d = diffuse[i]!;
    if (d >= lo && d <= hi) lit.push(i);
  }
  const ss = Float32Array.from(lit, (i) => specular[i]!).sort();
  const sMax = quantile(ss, 0.5);
  return Uint32Array.from(lit.filter((i) => specular[i]! <= sMax));
}

function median(values: Float32Array): number {
  const s = Float32Array.from(values).sort();
  return quantile(s, 0.5);
}

/** A shot with too few fully painted pixels to fit a calibration on. */
export class TooLittlePaintError extends Error {}

export function calibrateView(input: CalibrationInput): ViewCalibration {
  const region = referenceRegion(input.paint, input.diffuse, input.specular);
  if (region.length < 16) throw new TooLittlePaintError(`too little full-coverage paint to calibrate (${region.length} pixels)`);
  const d = new Float32Array(region.length);
  const s = new Float32Array(region.length);
  for (let k = 0; k < region.length; k++) {
    d[k] = input.diffuse[region[k]!]!;
    s[k] = input.specular[region[k]!]!;
  }
  const dMed = median(d);
  if (!(dMed > 1e-4)) throw new Error(`the paint is unlit (median diffuse ${dMed})`);
  const gain = 1 / dMed;
  // The smallest floor under which black paint's mid-tone is lifted by at most BLACK_LIFT: the
  // clear coat keeps its bright reflections, the dim room it mirrors stops greying the paint.
  const lifted = (floor: number) => {
    const v = new Float32Array(region.length);
    for (let k = 0; k < region.length; k++) v[k] = BLACK * gain * d[k]! + Math.max(0, s[k]! - floor);
    return quantile(v.sort(), FLOOR_QUANTILE);
  };
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < s.length; k++) if (s[k]! > hi) hi = s[k]!;
  if (lifted(0) <= BLACK * (1 + BLACK_LIFT)) hi = 0;
  for (let it = 0; it < 24 && hi > 0; it++) {
    const mid = (lo + hi) / 2;
    if (lifted(mid) <= BLACK * (1 + BLACK_LIFT)) hi = mid;
    else lo = mid;
  }
  return { diffuse_gain: +gain.toFixed(5), specular_floor: +hi.toFixed(6) };
}
