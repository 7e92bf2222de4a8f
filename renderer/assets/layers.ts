import sharp from 'sharp';
import { SRGB8_TO_LINEAR, LINEAR_LUT_SIZE, LINEAR_TO_SRGB8 } from '../color/srgb.ts';
import { LIGHT8_TO_LINEAR } from './light-encoding.ts';

/**
 * The decoded layers of one view at one size, in SharedArrayBuffers so the cpu workers read them
 * without copies. base: RGB 8-bit sRGB; paint, shadow, coverage: 8-bit; diffuse, specular: 16-bit
 * linear (whatever their encoding on disk).
 */
export interface Layers {
  key: string;
  width: number;
  height: number;
  base: Uint8Array;
  paint: Uint8Array;
  diffuse: Uint16Array;
  specular: Uint16Array;
  shadow: Uint8Array | null;
  coverage: Uint8Array | null;
  /**
   * Where a render differs from the base: the runs of pixels with paint or shadow (layers.ts
   * `activeRuns`). Everywhere else the cpu kernel leaves the base as it is. Absent: every pixel is visited.
   */
  runs?: ActiveRuns;
  bytes: number;
}

export function sharedU8(n: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(n));
}

export function sharedU16(n: number): Uint16Array {
  return new Uint16Array(new SharedArrayBuffer(n * 2));
}

function toShared8(buf: Buffer): Uint8Array {
  const out = sharedU8(buf.length);
  out.set(buf);
  return out;
}

function toShared16(buf: Buffer): Uint16Array {
  const out = sharedU16(buf.length / 2);
  out.set(new Uint16Array(buf.buffer, buf.byteOffset, buf.length / 2));
  return out;
}

function layerBytes(l: Omit<Layers, 'bytes' | 'key'>): number {
  return (
    l.base.byteLength +
    l.paint.byteLength +
    l.diffuse.byteLength +
    l.specular.byteLength +
    (l.shadow?.byteLength ?? 0) +
    (l.coverage?.byteLength ?? 0)
  );
}

/**
 * Per row, the runs [x0, x1) of pixels with paint or shadow, in shared memory: row y's runs are
 * `xs[2r], xs[2r + 1]` for r in [rowStart[y], rowStart[y + 1]). Gaps shorter than RUN_GAP are
 * bridged (a run's start costs more than a few idle pixels).
 */
export interface ActiveRuns {
  rowStart: Int32Array;
  xs: Int32Array;
}

const RUN_GAP = 8;

export function activeRuns(width: number, height: number, paint: Uint8Array, shadow: Uint8Array | null): ActiveRuns {
  const rowStart = new Int32Array(new SharedArrayBuffer((height + 1) * 4));
  let xs: number[] = [];
  for (let y = 0; y < height; y++) {
    rowStart[y] = xs.length / 2;
    const row = y * width;
    let x = 0;
    while (x < width) {
      while (x < width && paint[row + x] === 0 && (shadow === null || shadow[row + x] === 0)) x++;
      if (x >= width) break;
      const x0 = x;
      let end = x;
      // extend while active, or idle for fewer than RUN_GAP pixels before the next active one
      while (x < width) {
        if (paint[row + x] !== 0 || (shadow !== null && shadow[row + x] !== 0)) end = ++x;
        else if (x - end < RUN_GAP) x++;
        else break;
      }
      xs.push(x0, end);
      x = end;
    }
  }
  rowStart[height] = xs.length / 2;
  const shared = new Int32Array(new SharedArrayBuffer(Math.max(1, xs.length) * 4));
  shared.set(xs);
  xs = [];
  return { rowStart, xs: shared };
}

export function makeLayers(key: string, l: Omit<Layers, 'bytes' | 'key' | 'runs'>): Layers {
  const runs = activeRuns(l.width, l.height, l.paint, l.shadow);
  return { ...l, runs, key, bytes: layerBytes(l) + runs.rowStart.byteLength + runs.xs.byteLength };
}

export interface LayerFiles {
  base: string;
  paint: string;
  diffuse: string;
  specular: string;
  shadow: string | null;
  coverage: string | null;
}

/** Decodes a view's files once, at full size. */
export async function decodeLayerFiles(
  key: string,
  files: LayerFiles,
  lightDepth: { diffuse: 8 | 16; specular: 8 | 16 },
  width: number,
  height: number,
): Promise<Layers> {
  const rgb = (f: string) => sharp(f).removeAlpha().toColourspace('srgb').raw().toBuffer();
  const grey8 = (f: string) => sharp(f).toColourspace('b-w').raw().toBuffer();
  const light = async (f: string, depth: 8 | 16) => {
    if (depth === 16) return toShared16(await sharp(f).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer());
    // 8-bit light layers hold linear light through the sRGB curve (docs/asset-format.md)
    const b8 = await grey8(f);
    const out = sharedU16(b8.length);
    const lut = new Uint16Array(256);
    for (let i = 0; i < 256; i++) lut[i] = Math.round(LIGHT8_TO_LINEAR[i]! * 65535);
    for (let i = 0; i < b8.length; i++) out[i] = lut[b8[i]!]!;
    return out;
  };
  const [base, paint, diffuse, specular, shadow, coverage] = await Promise.all([
    rgb(files.base).then(toShared8),
    grey8(files.paint).then(toShared8),
    light(files.diffuse, lightDepth.diffuse),
    light(files.specular, lightDepth.specular),
    files.shadow ? grey8(files.shadow).then(toShared8) : Promise.resolve(null),
    files.coverage ? grey8(files.coverage).then(toShared8) : Promise.resolve(null),
  ]);
  const px = width * height;
  if (
    base.length !== px * 3 ||
    paint.length !== px ||
    diffuse.length !== px ||
    specular.length !== px ||
    (shadow && shadow.length !== px) ||
    (coverage && coverage.length !== px)
  ) {
    throw new Error(`${key}: decoded layer sizes do not match ${width}x${height}`);
  }
  return makeLayers(key, { width, height, base, paint, diffuse, specular, shadow, coverage });
}

/**
 * The next level down: each pixel the exact average of a 2×2 block (an odd last row or column is
 * dropped): the base in linear light, the paint mask, shadow and coverage as coverage, D and S
 * weighted by the paint mask (so the backdrop's zeros never darken the paint's edge). What a bake at
 * half the size with four times the samples would give, with no ringing. The render resizes its
 * finished picture to the exact output size afterwards.
 */
export function halveLayers(key: string, src: Layers): Layers {
  const { width: w } = src;
  const W = Math.floor(src.width / 2);
  const H = Math.floor(src.height / 2);
  const N = W * H;
  const base = sharedU8(N * 3);
  const paint = sharedU8(N);
  const diffuse = sharedU16(N);
  const specular = sharedU16(N);
  const shadow = src.shadow ? sharedU8(N) : null;
  const coverage = src.coverage ? sharedU8(N) : null;
  const L = SRGB8_TO_LINEAR;
  const Q = LINEAR_LUT_SIZE - 1;
  const sb = src.base;
  const sp = src.paint;
  const sd = src.diffuse;
  const ss = src.specular;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const o = y * W + x;
      const i0 = 2 * y * w + 2 * x;
      const i1 = i0 + 1;
      const i2 = i0 + w;
      const i3 = i2 + 1;
      for (let c = 0; c < 3; c++) {
        const v = (L[sb[i0 * 3 + c]!]! + L[sb[i1 * 3 + c]!]! + L[sb[i2 * 3 + c]!]! + L[sb[i3 * 3 + c]!]!) * 0.25;
        base[o * 3 + c] = LINEAR_TO_SRGB8[(v * Q + 0.5) | 0]!;
      }
      const m0 = sp[i0]!, m1 = sp[i1]!, m2 = sp[i2]!, m3 = sp[i3]!;
      const msum = m0 + m1 + m2 + m3;
      paint[o] = (msum + 2) >> 2;
      if (msum > 0) {
        diffuse[o] = Math.round((m0 * sd[i0]! + m1 * sd[i1]! + m2 * sd[i2]! + m3 * sd[i3]!) / msum);
        specular[o] = Math.round((m0 * ss[i0]! + m1 * ss[i1]! + m2 * ss[i2]! + m3 * ss[i3]!) / msum);
      }
      if (shadow) {
        const t = src.shadow!;
        shadow[o] = (t[i0]! + t[i1]! + t[i2]! + t[i3]! + 2) >> 2;
      }
      if (coverage) {
        const t = src.coverage!;
        coverage[o] = (t[i0]! + t[i1]! + t[i2]! + t[i3]! + 2) >> 2;
      }
    }
  }
  return makeLayers(key, { width: W, height: H, base, paint, diffuse, specular, shadow, coverage });
}
