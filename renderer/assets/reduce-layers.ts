import type { LevelGeometry, Layers } from './layer-types.ts';
export type { LevelGeometry } from './layer-types.ts';
import { SRGB8_TO_LINEAR, LINEAR_LUT_SIZE, LINEAR_TO_SRGB8 } from '../../shared/color/srgb.ts';
import { levelSize } from '../../shared/level-ladder.ts';
import { layersOf } from './layers.ts';
import type { LevelExtras } from './level-extras.ts';
import { runNow, runPaced, type Sliced } from './paced.ts';

/**
 * One axis of a box reduction: for each output index, the source indices it overlaps and by how much.
 * Positions are in full-size pixels, so every length is exact in binary (footprints are 2^k or
 * 1.5·2^k): output i covers [i·fo, (i+1)·fo), source j covers [j·fs, (j+1)·fs), both clipped to the
 * full size `full` (a level's last pixel may cover only part of its footprint: its value is the
 * average over the part that exists, so it weighs only that much in the next level down).
 */
interface AxisTaps {
  first: Int32Array;
  count: Int32Array;
  /** TAPS weights per output index, in full-size pixels */
  weight: Float64Array;
}

const TAPS = 3;

function axisTaps(outLen: number, fo: number, srcLen: number, fs: number, full: number): AxisTaps {
  const first = new Int32Array(outLen);
  const count = new Int32Array(outLen);
  const weight = new Float64Array(outLen * TAPS);
  for (let i = 0; i < outLen; i++) {
    const a = i * fo;
    const b = Math.min((i + 1) * fo, full);
    let j = Math.floor(a / fs);
    first[i] = j;
    let n = 0;
    for (; j < srcLen && j * fs < b; j++) {
      const w = Math.min(b, (j + 1) * fs, full) - Math.max(a, j * fs);
      if (w <= 0) continue;
      if (n === TAPS) throw new Error(`box reduction ${fs} → ${fo} overlaps more than ${TAPS} source pixels`);
      weight[i * TAPS + n++] = w;
    }
    count[i] = n;
  }
  return { first, count, weight };
}

/** Where a level sits: full-size pixels per level pixel along each axis, and the full size. */

export function levelGeometry(l: Layers): LevelGeometry {
  return l.level ?? { footprint: 1, fullWidth: l.width, fullHeight: l.height };
}


/**
 * A level down by `ratio` (2: the next halving; 1.5: the 2/3-size level): each pixel the exact area
 * average of the source pixels under its footprint (2×2 of them, or 1.5×1.5 with the middle row and
 * column shared half and half between neighbours): the base in linear light, the paint mask, shadow
 * and coverage as coverage, D and S weighted by the paint mask (so the backdrop's zeros never darken
 * the paint's edge). What a bake at that size with more samples would give, with no ringing. Its size
 * is levelSize(): a size that does not divide exactly ends in a pixel covering part of its footprint
 * (averaged over what exists) or, under half of one, drops that sliver. The render resizes its finished
 * picture to the exact output size afterwards, when the level's size is not already the output size.
 */
export function reduceLayers(key: string, src: Layers, ratio: 2 | 1.5, extras: LevelExtras): Layers {
  return runNow(reducedLayers(key, src, ratio, extras));
}

/** reduceLayers, paced (paced.ts): what the asset store runs on the renderer's main thread. */
export function reduceLayersPaced(key: string, src: Layers, ratio: 2 | 1.5, extras: LevelExtras, sliceMs?: number): Promise<Layers> {
  return runPaced(reducedLayers(key, src, ratio, extras), sliceMs);
}

function* reducedLayers(key: string, src: Layers, ratio: 2 | 1.5, extras: LevelExtras): Sliced<Layers> {
  const g = levelGeometry(src);
  const footprint = g.footprint * ratio;
  const { width: W, height: H } = levelSize(g.fullWidth, g.fullHeight, footprint);
  const tx = axisTaps(W, footprint, src.width, g.footprint, g.fullWidth);
  const ty = axisTaps(H, footprint, src.height, g.footprint, g.fullHeight);
  const w = src.width;
  const N = W * H;
  // planes from `extras`, as the level's parent's were (the asset store makes all its levels with the same)
  const planes = extras.allocatePlanes(key, W, H, { shadow: src.shadow !== null, coverage: src.coverage !== null });
  const { base, paint, diffuse, specular, shadow, coverage } = planes;
  const L = SRGB8_TO_LINEAR;
  const Q = LINEAR_LUT_SIZE - 1;
  const sb = src.base;
  const sp = src.paint;
  const sd = src.diffuse;
  const ss = src.specular;
  const sh = src.shadow;
  const sc = src.coverage;
  for (let y = 0; y < H; y++) {
    // every row (about 0.1 ms at 1600 px once compiled, but ten times that before: the first rows a
    // process reduces run in the interpreter)
    if (y > 0) yield;
    const y0 = ty.first[y]!;
    const ny = ty.count[y]!;
    const wy0 = ty.weight[y * TAPS]!;
    const wy1 = ty.weight[y * TAPS + 1]!;
    for (let x = 0; x < W; x++) {
      const x0 = tx.first[x]!;
      const nx = tx.count[x]!;
      const o = y * W + x;
      let wsum = 0, r = 0, gr = 0, bl = 0, m = 0, d = 0, s = 0, t = 0, c = 0;
      if (nx === 2 && ny === 2) {
        // every output pixel but a partial last row or column: 2 × 2 source pixels (both ratios), unrolled
        const wx0 = tx.weight[x * TAPS]!;
        const wx1 = tx.weight[x * TAPS + 1]!;
        const i0 = y0 * w + x0, i1 = i0 + 1, i2 = i0 + w, i3 = i2 + 1;
        const w0 = wy0 * wx0, w1 = wy0 * wx1, w2 = wy1 * wx0, w3 = wy1 * wx1;
        wsum = w0 + w1 + w2 + w3;
        r = w0 * L[sb[i0 * 3]!]! + w1 * L[sb[i1 * 3]!]! + w2 * L[sb[i2 * 3]!]! + w3 * L[sb[i3 * 3]!]!;
        gr = w0 * L[sb[i0 * 3 + 1]!]! + w1 * L[sb[i1 * 3 + 1]!]! + w2 * L[sb[i2 * 3 + 1]!]! + w3 * L[sb[i3 * 3 + 1]!]!;
        bl = w0 * L[sb[i0 * 3 + 2]!]! + w1 * L[sb[i1 * 3 + 2]!]! + w2 * L[sb[i2 * 3 + 2]!]! + w3 * L[sb[i3 * 3 + 2]!]!;
        const m0 = w0 * sp[i0]!, m1 = w1 * sp[i1]!, m2 = w2 * sp[i2]!, m3 = w3 * sp[i3]!;
        m = m0 + m1 + m2 + m3;
        if (m > 0) {
          d = m0 * sd[i0]! + m1 * sd[i1]! + m2 * sd[i2]! + m3 * sd[i3]!;
          s = m0 * ss[i0]! + m1 * ss[i1]! + m2 * ss[i2]! + m3 * ss[i3]!;
        }
        if (sh) t = w0 * sh[i0]! + w1 * sh[i1]! + w2 * sh[i2]! + w3 * sh[i3]!;
        if (sc) c = w0 * sc[i0]! + w1 * sc[i1]! + w2 * sc[i2]! + w3 * sc[i3]!;
      } else {
        for (let v = 0; v < ny; v++) {
          const wy = ty.weight[y * TAPS + v]!;
          const row = (y0 + v) * w + x0;
          for (let u = 0; u < nx; u++) {
            const wt = wy * tx.weight[x * TAPS + u]!;
            const i = row + u;
            wsum += wt;
            r += wt * L[sb[i * 3]!]!;
            gr += wt * L[sb[i * 3 + 1]!]!;
            bl += wt * L[sb[i * 3 + 2]!]!;
            const wm = wt * sp[i]!;
            m += wm;
            d += wm * sd[i]!;
            s += wm * ss[i]!;
            if (sh) t += wt * sh[i]!;
            if (sc) c += wt * sc[i]!;
          }
        }
      }
      base[o * 3] = LINEAR_TO_SRGB8[((r / wsum) * Q + 0.5) | 0]!;
      base[o * 3 + 1] = LINEAR_TO_SRGB8[((gr / wsum) * Q + 0.5) | 0]!;
      base[o * 3 + 2] = LINEAR_TO_SRGB8[((bl / wsum) * Q + 0.5) | 0]!;
      paint[o] = Math.round(m / wsum);
      if (m > 0) {
        diffuse[o] = Math.round(d / m);
        specular[o] = Math.round(s / m);
      }
      if (shadow) shadow[o] = Math.round(t / wsum);
      if (coverage) coverage[o] = Math.round(c / wsum);
    }
  }
  const level: LevelGeometry = { footprint, fullWidth: g.fullWidth, fullHeight: g.fullHeight };
  const made = yield* layersOf(key, { ...planes, width: W, height: H }, extras);
  return { ...made, level };
}

/** The next level down: each pixel the exact average of a 2×2 block (reduceLayers), paced. */
export function halveLayers(key: string, src: Layers, extras: LevelExtras): Promise<Layers> {
  return reduceLayersPaced(key, src, 2, extras);
}

/** The 2/3-size level: each pixel the exact area average of a 1.5×1.5 block (reduceLayers), paced. */
export function twoThirdsLayers(key: string, src: Layers, extras: LevelExtras): Promise<Layers> {
  return reduceLayersPaced(key, src, 1.5, extras);
}
