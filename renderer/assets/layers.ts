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

export function makeLayers(key: string, l: Omit<Layers, 'bytes' | 'key'>): Layers {
  return { ...l, key, bytes: layerBytes(l) };
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
 * Area-average weights of a 1-D downscale from n to N samples: for each output sample the input
 * samples it covers and how much of each (an exact box filter, no ringing, any ratio ≥ 1).
 */
function areaWeights(n: number, N: number): { start: Int32Array; count: Int32Array; w: Float32Array; stride: number } {
  const scale = n / N;
  const stride = Math.ceil(scale) + 2;
  const start = new Int32Array(N);
  const count = new Int32Array(N);
  const w = new Float32Array(N * stride);
  for (let o = 0; o < N; o++) {
    const a = o * scale;
    const b = (o + 1) * scale;
    const i0 = Math.floor(a);
    const i1 = Math.min(n, Math.ceil(b));
    start[o] = i0;
    count[o] = i1 - i0;
    for (let i = i0; i < i1; i++) w[o * stride + (i - i0)] = (Math.min(b, i + 1) - Math.max(a, i)) / scale;
  }
  return { start, count, w, stride };
}

/** Box-downscales `planes` (each w×h floats) to W×H, separably. */
function boxPlanes(planes: Float32Array[], w: number, h: number, W: number, H: number): Float32Array[] {
  const hx = areaWeights(w, W);
  const hy = areaWeights(h, H);
  return planes.map((src) => {
    const tmp = new Float32Array(W * h);
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let o = 0; o < W; o++) {
        const s = hx.start[o]!;
        const c = hx.count[o]!;
        let acc = 0;
        for (let k = 0; k < c; k++) acc += src[row + s + k]! * hx.w[o * hx.stride + k]!;
        tmp[y * W + o] = acc;
      }
    }
    const out = new Float32Array(W * H);
    for (let o = 0; o < H; o++) {
      const s = hy.start[o]!;
      const c = hy.count[o]!;
      for (let k = 0; k < c; k++) {
        const wk = hy.w[o * hy.stride + k]!;
        const row = (s + k) * W;
        for (let x = 0; x < W; x++) out[o * W + x]! += tmp[row + x]! * wk;
      }
    }
    return out;
  });
}

const INV16 = 1 / 65535;
const INV8 = 1 / 255;

/**
 * A smaller level of a view's layers by exact area averaging: the base in linear light, the paint
 * mask, shadow and coverage as coverage, D and S weighted by the paint mask (so the backdrop's zeros
 * never darken the paint's edge). What a bake at that size with more samples per pixel would give.
 */
export function downscaleLayers(key: string, src: Layers, W: number, H: number): Layers {
  const { width: w, height: h } = src;
  const n = w * h;
  const r = new Float32Array(n);
  const g = new Float32Array(n);
  const b = new Float32Array(n);
  const m = new Float32Array(n);
  const md = new Float32Array(n);
  const ms = new Float32Array(n);
  const sh = src.shadow ? new Float32Array(n) : null;
  const cv = src.coverage ? new Float32Array(n) : null;
  for (let i = 0; i < n; i++) {
    r[i] = SRGB8_TO_LINEAR[src.base[i * 3]!]!;
    g[i] = SRGB8_TO_LINEAR[src.base[i * 3 + 1]!]!;
    b[i] = SRGB8_TO_LINEAR[src.base[i * 3 + 2]!]!;
    const mi = src.paint[i]! * INV8;
    m[i] = mi;
    md[i] = mi * src.diffuse[i]! * INV16;
    ms[i] = mi * src.specular[i]! * INV16;
    if (sh) sh[i] = src.shadow![i]! * INV8;
    if (cv) cv[i] = src.coverage![i]! * INV8;
  }
  const planes = [r, g, b, m, md, ms];
  if (sh) planes.push(sh);
  if (cv) planes.push(cv);
  const out = boxPlanes(planes, w, h, W, H);
  const [R, G, B, M, MD, MS] = out as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
  const SH = sh ? out[6]! : null;
  const CV = cv ? out[sh ? 7 : 6]! : null;
  const N = W * H;
  const base = sharedU8(N * 3);
  const paint = sharedU8(N);
  const diffuse = sharedU16(N);
  const specular = sharedU16(N);
  const shadow = SH ? sharedU8(N) : null;
  const coverage = CV ? sharedU8(N) : null;
  const Q = LINEAR_LUT_SIZE - 1;
  const enc = (v: number) => LINEAR_TO_SRGB8[v <= 0 ? 0 : v >= 1 ? Q : (v * Q + 0.5) | 0]!;
  const q8 = (v: number) => (v <= 0 ? 0 : v >= 1 ? 255 : Math.round(v * 255));
  const q16 = (v: number) => (v <= 0 ? 0 : v >= 1 ? 65535 : Math.round(v * 65535));
  for (let i = 0; i < N; i++) {
    base[i * 3] = enc(R[i]!);
    base[i * 3 + 1] = enc(G[i]!);
    base[i * 3 + 2] = enc(B[i]!);
    const mi = M[i]!;
    paint[i] = q8(mi);
    if (mi > 1e-6) {
      diffuse[i] = q16(MD[i]! / mi);
      specular[i] = q16(MS[i]! / mi);
    }
    if (shadow) shadow[i] = q8(SH![i]!);
    if (coverage) coverage[i] = q8(CV![i]!);
  }
  return makeLayers(key, { width: W, height: H, base, paint, diffuse, specular, shadow, coverage });
}
