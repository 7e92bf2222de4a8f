// AssemblyScript (not the project's TypeScript): the cpu backend's compositing kernel for the opaque
// (studio backdrop) rows, compiled to kernel.wasm by `npm run build:kernel`. The same formula as
// the reference kernel (test/support/reference-kernel.ts, docs/asset-format.md "Compositing"); on opaque rows
// every painted pixel is computed in single precision like the gl backend's shader (fully painted:
// `paintedQuad` four at a time, `paintedOne`, the level palette's colours; partly painted: `edgeQuad`
// from the level's edge list, `edgeOne`), which may be a code off the reference's f64 where a value
// lies within f32 rounding of a threshold; the transparent rows are the reference's f64 exactly. The
// tables (sRGB decode, exact encode, shadowed backdrop) are the JavaScript ones, copied into this
// module's memory by wasm-kernel.ts.
//
// Memory (imported, shared: asconfig.json): [0, THR32 + 1 KB) and [LO16, HEADER) the tables, written by wasm-kernel.ts at
// instantiation; the module has no data segments and no shadow stack, and its static data (none
// today) would start at asconfig's memoryBase, inside the header. [0, HEADER) is reserved in every
// memory this kernel runs on: a layers arena (../arena.ts `allocPlanes`: the planes
// at offsets past the header, the kernel reads them in place) or wasm-kernel.ts's own scratch memory
// (spans copied in, for inputs that are not in an arena).

/** Encode table: LO[bucket] (u8 × 4096), THR[code] (f64 × 256): see ../../../color/srgb8.ts. */
export const LO: usize = 0;
export const THR: usize = 4096;
/** sRGB code → linear light (f64 × 256). */
export const LIN: usize = THR + 256 * 8;
/** SHADED[shadow << 8 | code] (u8 × 65536). */
export const SHADED: usize = LIN + 256 * 8;
/** THR32[code]: THR's thresholds as the least f32 at or above each (f32 × 256), the four-lane path's encode. */
export const THR32: usize = SHADED + 65536;
/**
 * LO16[bucket] (u16 × 65536, at 128 KB, past the module's static data): the code at the start of
 * each 1/65536 bucket of linear light, plus 256 where one of THR's thresholds falls inside the bucket
 * (the four-lane path's encode: one lookup, a comparison only in those 255 buckets).
 */
export const LO16: usize = 131072;
/** Bytes reserved at the start of every memory (arena.ts ARENA_HEADER_BYTES must equal it; checked at load). */
export const HEADER: usize = 262144;
/** Where wasm-kernel.ts's own memory has its scratch (spans copied in): past the tables. */
export const SCRATCH: usize = HEADER;

const K: f64 = 0.9; // SHOULDER_KNEE
const INV_1K: f64 = 1.0 / (1.0 - K);
const INV16: f64 = 1.0 / 65535.0;
const INV8: f64 = 1.0 / 255.0;

// the picture's constants, set once per job
let tr: f64 = 0, tg: f64 = 0, tb: f64 = 0;
let nr: f64 = 0, ng: f64 = 0, nb: f64 = 0;
let gain: f64 = 0, floor: f64 = 0;

export function setup(r: f64, g: f64, b: f64, n0: f64, n1: f64, n2: f64, gn: f64, fl: f64): void {
  tr = r; tg = g; tb = b;
  nr = n0; ng = n1; nb = n2;
  gain = gn; floor = fl;
}

/** round(255 · srgb_encode(clamp(c, 0, 1))), exactly as ../../../color/srgb8.ts `encodeSrgb8`. */
// @ts-ignore: decorator
@inline function enc(c: f64): u32 {
  if (c <= 0) return 0;
  if (c >= 1) return 255;
  const v = <u32>load<u8>(LO + <usize>(<i32>(c * 4096.0)));
  // a select, not a branch: whether c crosses the bucket's threshold is data-dependent, unpredictable
  return v + <u32>(c >= load<f64>(THR + (<usize>v << 3)));
}

/**
 * `enc` for c in [0, 1] as f32, its 1/65536 bucket already found: the code at the bucket's start, and
 * where a threshold lies inside the bucket, the comparison with it (as the least f32 at or above it,
 * so the comparison is the f64 one).
 */
// @ts-ignore: decorator
@inline function enc32(c: f32, bucket: i32): u8 {
  const e = <u32>load<u16>(LO16 + (<usize>bucket << 1));
  if (e < 256) return <u8>e;
  const v = e & 255;
  return <u8>(v + <u32>(c >= load<f32>(THR32 + (<usize>v << 2))));
}

// @ts-ignore: decorator
@inline function lin(code: u32): f64 {
  return load<f64>(LIN + (<usize>code << 3));
}

// The shouldered paint colour and the base under the paint, shared by the opaque and transparent
// paths (inlined, so no call remains); results in these globals, as AssemblyScript has no tuples.
let cr: f64 = 0, cg: f64 = 0, cb: f64 = 0;
let ur: f64 = 0, ug: f64 = 0, ub: f64 = 0;

/** The requested paint lit by D and S, shouldered above the knee (../kernel.ts), into (cr, cg, cb). */
// @ts-ignore: decorator
@inline function paintColour(D: f64, S: f64): void {
  const Dc = gain * D;
  const Sc = S > floor ? S - floor : 0.0;
  let r = tr * Dc + Sc;
  let g = tg * Dc + Sc;
  let b = tb * Dc + Sc;
  const mx = r > g ? (r > b ? r : b) : g > b ? g : b;
  if (mx > K) {
    const x = (mx - K) * INV_1K;
    const f = (K + ((1.0 - K) * x) / (1.0 + x)) / mx;
    r *= f;
    g *= f;
    b *= f;
  }
  cr = r;
  cg = g;
  cb = b;
}

/** The base pixel at `bi` without its neutral paint at coverage m, bounded by what the rest of the pixel can hold, into (ur, ug, ub). */
// @ts-ignore: decorator
@inline function underPaint(bi: usize, m: f64, D: f64, S: f64): void {
  const rest = 1.0 - m;
  let r = lin(<u32>load<u8>(bi)) - m * (nr * D + S);
  let g = lin(<u32>load<u8>(bi + 1)) - m * (ng * D + S);
  let b = lin(<u32>load<u8>(bi + 2)) - m * (nb * D + S);
  ur = r < 0 ? 0 : r > rest ? rest : r;
  ug = g < 0 ? 0 : g > rest ? rest : g;
  ub = b < 0 ? 0 : b > rest ? rest : b;
}

/**
 * The shoulder's factor for four pixels whose largest channels are `mx`: 1 in lanes not over the knee
 * (at or below it, or NaN: f32x4.gt is false there). A channel times 1 is itself exactly (a NaN stays
 * a NaN, which the clamp and encode make 0 either way), so every lane may be multiplied by it.
 */
// @ts-ignore: decorator
@inline function shoulderQuad(mx: v128): v128 {
  const kk = f32x4.splat(<f32>K);
  const one = f32x4.splat(1.0);
  const over = f32x4.gt(mx, kk);
  if (!v128.any_true(over)) return one;
  const x = f32x4.mul(f32x4.sub(mx, kk), f32x4.splat(<f32>INV_1K));
  const f = f32x4.div(f32x4.add(kk, f32x4.div(f32x4.mul(f32x4.splat(<f32>(1.0 - K)), x), f32x4.add(one, x))), mx);
  return v128.bitselect(f, one, over);
}

/** `shoulderQuad` for one pixel: a lane of it, operation for operation. */
// @ts-ignore: decorator
@inline function shoulderOne(mx: f32): f32 {
  const kk = <f32>K;
  if (!(mx > kk)) return 1; // not `mx <= kk`: a NaN is not over the knee (as in f32x4.gt)
  const x = (mx - kk) * <f32>INV_1K;
  return (kk + (<f32>(1.0 - K) * x) / (<f32>1.0 + x)) / mx;
}

/**
 * Four pixels' linear RGB (f32x4 per channel) clamped to [0, 1] and encoded (`enc32`: the bucket of
 * each lane in SIMD, the code and its threshold per lane), lane j written at address `aj`.
 */
// @ts-ignore: decorator
@inline function storeQuad(r: v128, g: v128, b: v128, a0: usize, a1: usize, a2: usize, a3: usize): void {
  const zero = f32x4.splat(0);
  const one = f32x4.splat(1.0);
  r = f32x4.pmin(f32x4.pmax(r, zero), one);
  g = f32x4.pmin(f32x4.pmax(g, zero), one);
  b = f32x4.pmin(f32x4.pmax(b, zero), one);
  const nb16 = f32x4.splat(65536.0); // not `nb`: the neutral paint's blue
  const last = i32x4.splat(65535);
  const kr = i32x4.min_s(i32x4.trunc_sat_f32x4_s(f32x4.mul(r, nb16)), last);
  const kg = i32x4.min_s(i32x4.trunc_sat_f32x4_s(f32x4.mul(g, nb16)), last);
  const kb = i32x4.min_s(i32x4.trunc_sat_f32x4_s(f32x4.mul(b, nb16)), last);
  store<u8>(a0, enc32(f32x4.extract_lane(r, 0), i32x4.extract_lane(kr, 0)));
  store<u8>(a0 + 1, enc32(f32x4.extract_lane(g, 0), i32x4.extract_lane(kg, 0)));
  store<u8>(a0 + 2, enc32(f32x4.extract_lane(b, 0), i32x4.extract_lane(kb, 0)));
  store<u8>(a1, enc32(f32x4.extract_lane(r, 1), i32x4.extract_lane(kr, 1)));
  store<u8>(a1 + 1, enc32(f32x4.extract_lane(g, 1), i32x4.extract_lane(kg, 1)));
  store<u8>(a1 + 2, enc32(f32x4.extract_lane(b, 1), i32x4.extract_lane(kb, 1)));
  store<u8>(a2, enc32(f32x4.extract_lane(r, 2), i32x4.extract_lane(kr, 2)));
  store<u8>(a2 + 1, enc32(f32x4.extract_lane(g, 2), i32x4.extract_lane(kg, 2)));
  store<u8>(a2 + 2, enc32(f32x4.extract_lane(b, 2), i32x4.extract_lane(kb, 2)));
  store<u8>(a3, enc32(f32x4.extract_lane(r, 3), i32x4.extract_lane(kr, 3)));
  store<u8>(a3 + 1, enc32(f32x4.extract_lane(g, 3), i32x4.extract_lane(kg, 3)));
  store<u8>(a3 + 2, enc32(f32x4.extract_lane(b, 3), i32x4.extract_lane(kb, 3)));
}

/** `storeQuad` for one pixel: a lane of it, operation for operation (f32x4.pmin/pmax written as their definitions). */
// @ts-ignore: decorator
@inline function storeOne(r: f32, g: f32, b: f32, o: usize): void {
  r = r < 0 ? 0 : r;
  g = g < 0 ? 0 : g;
  b = b < 0 ? 0 : b;
  r = <f32>1.0 < r ? <f32>1.0 : r;
  g = <f32>1.0 < g ? <f32>1.0 : g;
  b = <f32>1.0 < b ? <f32>1.0 : b;
  const kr = <i32>(r * <f32>65536.0);
  const kg = <i32>(g * <f32>65536.0);
  const kb = <i32>(b * <f32>65536.0);
  store<u8>(o, enc32(r, kr < 65535 ? kr : 65535));
  store<u8>(o + 1, enc32(g, kg < 65535 ? kg : 65535));
  store<u8>(o + 2, enc32(b, kb < 65535 ? kb : 65535));
}

/**
 * Four fully painted pixels at once in f32x4 (the formula in single precision, as the gl backend's
 * shader computes it), encoded with the exact encode's tables. Not always the reference's
 * (../kernel.ts) f64 bytes: a value within single precision's rounding (about 1e-7 relative) of a code's
 * threshold may come out one code off (test/renderer/helpers.ts expectKernelMatch bounds how many).
 */
// @ts-ignore: decorator
@inline function paintedQuad(i: usize, ps: usize, pd: usize, pq: usize, o: usize): void {
  const inv16 = f32x4.splat(<f32>INV16);
  const D = f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(v128.load64_zero(pd + (i << 1)))), inv16);
  const S = f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(v128.load64_zero(pq + (i << 1)))), inv16);
  const Sc = f32x4.pmax(f32x4.sub(S, f32x4.splat(<f32>floor)), f32x4.splat(0));
  const Dc = f32x4.mul(f32x4.splat(<f32>gain), D);
  let r = f32x4.add(f32x4.mul(f32x4.splat(<f32>tr), Dc), Sc);
  let g = f32x4.add(f32x4.mul(f32x4.splat(<f32>tg), Dc), Sc);
  let b = f32x4.add(f32x4.mul(f32x4.splat(<f32>tb), Dc), Sc);
  const sf = shoulderQuad(f32x4.pmax(f32x4.pmax(r, g), b));
  r = f32x4.mul(r, sf);
  g = f32x4.mul(g, sf);
  b = f32x4.mul(b, sf);
  if (ps != 0 && load<u32>(ps + i) != 0) {
    const s = f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(ps + i))));
    const f = f32x4.sub(f32x4.splat(1.0), f32x4.mul(s, f32x4.splat(<f32>INV8)));
    r = f32x4.mul(r, f);
    g = f32x4.mul(g, f);
    b = f32x4.mul(b, f);
  }
  storeQuad(r, g, b, o, o + 3, o + 6, o + 9);
}

/**
 * One fully painted pixel in single precision: a lane of `paintedQuad`, operation for operation, so a
 * fully painted pixel gets the same bytes whether it falls in a quad, short of one, or takes its
 * colour from the level's palette (the same request gives the same bytes, palette or not).
 */
// @ts-ignore: decorator
@inline function paintedOne(i: usize, ps: usize, pd: usize, pq: usize, o: usize): void {
  const D = <f32>load<u16>(pd + (i << 1)) * <f32>INV16;
  const S = <f32>load<u16>(pq + (i << 1)) * <f32>INV16;
  const t = S - <f32>floor;
  const Sc: f32 = t < 0 ? 0 : t;
  const Dc = <f32>gain * D;
  let r = <f32>tr * Dc + Sc;
  let g = <f32>tg * Dc + Sc;
  let b = <f32>tb * Dc + Sc;
  const m1 = r < g ? g : r;
  const sf = shoulderOne(m1 < b ? b : m1);
  r *= sf;
  g *= sf;
  b *= sf;
  if (ps != 0) {
    const s8 = <u32>load<u8>(ps + i);
    if (s8 != 0) {
      const f = <f32>1.0 - <f32>s8 * <f32>INV8;
      r *= f;
      g *= f;
      b *= f;
    }
  }
  storeOne(r, g, b, o);
}

/**
 * A level's edge list (level-tables.ts `LevelEdges`) is in blocks of four entries, EDGE_BLOCK bytes each:
 * eight fields of four lanes (16 bytes) one after the other: the pixels (u32), then their inputs in
 * single precision as `edgeInputs` computes them from the planes (f32): diffuse, specular, paint
 * coverage, the base's linear R, G, B, and the shadow's factor (1 where none). One block is one
 * quad's loads, and a row's blocks are one run of memory (a layout per field would have the
 * kernel wait on eight short streams each row).
 */
const EDGE_BLOCK: usize = 128;

// a partly painted pixel's inputs, in these globals (edgeInputs, or an edge list entry)
let eD: f32 = 0, eS: f32 = 0, eM: f32 = 0, eR: f32 = 0, eG: f32 = 0, eB: f32 = 0, eSh: f32 = 1;

/** Pixel `i`'s edge inputs from the planes, as level-tables.ts `levelEdges` stores them (the same f32 values: see there). */
// @ts-ignore: decorator
@inline function edgeInputs(i: usize, m8: u32, ps: usize, pd: usize, pq: usize, bi: usize): void {
  eD = <f32>load<u16>(pd + (i << 1)) * <f32>INV16;
  eS = <f32>load<u16>(pq + (i << 1)) * <f32>INV16;
  eM = <f32>m8 * <f32>INV8;
  eR = <f32>lin(<u32>load<u8>(bi));
  eG = <f32>lin(<u32>load<u8>(bi + 1));
  eB = <f32>lin(<u32>load<u8>(bi + 2));
  eSh = 1;
  if (ps != 0) {
    const s8 = <u32>load<u8>(ps + i);
    if (s8 != 0) eSh = <f32>1.0 - <f32>s8 * <f32>INV8;
  }
}

/**
 * A partly painted pixel (the paint's edge) from its inputs (eD … eSh) in single precision, like the
 * gl backend's shader: the paint colour (`paintedQuad`'s), the base without its neutral paint under
 * it, the shadow when `shade`. A lane of `edgeQuad`, operation for operation (f32x4.pmin/pmax
 * written as their definitions), so an edge pixel gets the same bytes from the list or the planes.
 */
// @ts-ignore: decorator
@inline function edgeOne(shade: bool, o: usize): void {
  const D = eD;
  const S = eS;
  const m = eM;
  const t = S - <f32>floor;
  const Sc: f32 = t < 0 ? 0 : t;
  const Dc = <f32>gain * D;
  let r = <f32>tr * Dc + Sc;
  let g = <f32>tg * Dc + Sc;
  let b = <f32>tb * Dc + Sc;
  const m1 = r < g ? g : r;
  const sf = shoulderOne(m1 < b ? b : m1);
  r *= sf;
  g *= sf;
  b *= sf;
  const rest = <f32>1.0 - m;
  let ur = eR - m * (<f32>nr * D + S);
  let ug = eG - m * (<f32>ng * D + S);
  let ub = eB - m * (<f32>nb * D + S);
  ur = ur < 0 ? 0 : ur;
  ug = ug < 0 ? 0 : ug;
  ub = ub < 0 ? 0 : ub;
  ur = rest < ur ? rest : ur;
  ug = rest < ug ? rest : ug;
  ub = rest < ub ? rest : ub;
  r = ur + m * r;
  g = ug + m * g;
  b = ub + m * b;
  if (shade) {
    r *= eSh;
    g *= eSh;
    b *= eSh;
  }
  storeOne(r, g, b, o);
}

/** The four entries of the edge list block at `at` in f32x4, each written at `o0` + 3 × its pixel. */
// @ts-ignore: decorator
@inline function edgeQuad(at: usize, shade: bool, o0: usize): void {
  const D = v128.load(at, 16);
  const S = v128.load(at, 32);
  const m = v128.load(at, 48);
  const zero = f32x4.splat(0);
  const Sc = f32x4.pmax(f32x4.sub(S, f32x4.splat(<f32>floor)), zero);
  const Dc = f32x4.mul(f32x4.splat(<f32>gain), D);
  let r = f32x4.add(f32x4.mul(f32x4.splat(<f32>tr), Dc), Sc);
  let g = f32x4.add(f32x4.mul(f32x4.splat(<f32>tg), Dc), Sc);
  let b = f32x4.add(f32x4.mul(f32x4.splat(<f32>tb), Dc), Sc);
  const sf = shoulderQuad(f32x4.pmax(f32x4.pmax(r, g), b));
  r = f32x4.mul(r, sf);
  g = f32x4.mul(g, sf);
  b = f32x4.mul(b, sf);
  const rest = f32x4.sub(f32x4.splat(1.0), m);
  let ur = f32x4.sub(v128.load(at, 64), f32x4.mul(m, f32x4.add(f32x4.mul(f32x4.splat(<f32>nr), D), S)));
  let ug = f32x4.sub(v128.load(at, 80), f32x4.mul(m, f32x4.add(f32x4.mul(f32x4.splat(<f32>ng), D), S)));
  let ub = f32x4.sub(v128.load(at, 96), f32x4.mul(m, f32x4.add(f32x4.mul(f32x4.splat(<f32>nb), D), S)));
  ur = f32x4.pmin(f32x4.pmax(ur, zero), rest);
  ug = f32x4.pmin(f32x4.pmax(ug, zero), rest);
  ub = f32x4.pmin(f32x4.pmax(ub, zero), rest);
  r = f32x4.add(ur, f32x4.mul(m, r));
  g = f32x4.add(ug, f32x4.mul(m, g));
  b = f32x4.add(ub, f32x4.mul(m, b));
  if (shade) {
    const sh = v128.load(at, 112);
    r = f32x4.mul(r, sh);
    g = f32x4.mul(g, sh);
    b = f32x4.mul(b, sh);
  }
  const pos = v128.load(at);
  storeQuad(
    r, g, b,
    o0 + <usize>i32x4.extract_lane(pos, 0) * 3,
    o0 + <usize>i32x4.extract_lane(pos, 1) * 3,
    o0 + <usize>i32x4.extract_lane(pos, 2) * 3,
    o0 + <usize>i32x4.extract_lane(pos, 3) * 3,
  );
}

/**
 * The fully painted colour of `n` (a multiple of 4) lightings, diffuse and specular (u16) at `pd`,
 * `pq`: RGB (3 bytes each) at `out`, as `paintedQuad` computes them without shadow, so a pixel given
 * its lighting's colour gets the bytes it would have got (level-tables.ts `LevelPalette`).
 */
export function paletteColours(n: i32, pd: usize, pq: usize, out: usize): void {
  for (let i = 0; i < n; i += 4) paintedQuad(<usize>i, 0, pd, pq, out + <usize>i * 3);
}

/** Four pixels' colours from the palette `pal` (3 bytes an entry, one more readable past the last) by their indices (u32) at `pi`, into 12 bytes at `o`. */
// @ts-ignore: decorator
@inline function gather4(pi: usize, pal: usize, o: usize): void {
  const a = load<u32>(pal + <usize>load<u32>(pi) * 3);
  const b = load<u32>(pal + <usize>load<u32>(pi + 4) * 3);
  const c = load<u32>(pal + <usize>load<u32>(pi + 8) * 3);
  const d = load<u32>(pal + <usize>load<u32>(pi + 12) * 3);
  store<u32>(o, (a & 0xffffff) | (b << 24));
  store<u32>(o + 4, ((b >> 8) & 0xffff) | (c << 16));
  store<u32>(o + 8, ((c >> 16) & 0xff) | (d << 8));
}

// @ts-ignore: decorator
@inline function gather1(pi: usize, pal: usize, o: usize): void {
  const a = load<u32>(pal + <usize>load<u32>(pi) * 3);
  store<u16>(o, <u16>a);
  store<u8>(o + 2, <u8>(a >> 16));
}

/**
 * `n` pixels of one row: paint (u8) at `pm`, shadow (u8) at `ps` (0: no shadow), diffuse and
 * specular (u16) at `pd`, `pq`, the starting picture (RGB u8) at `src`, the base (RGB u8) at `pb`,
 * the output (RGB u8) at `rgb` (the start is copied there first unless `src` is `rgb`, then
 * overwritten where paint, or shadow, is). `preShadowed` (1): the start is the base with the shadow
 * already applied (../level-extras.ts `shadowedBase`), so unpainted pixels are done; 0: the start is the base.
 * `pal` (0: none): the level's palette colours (`paletteColours`), and at `pi` the palette index (u32)
 * of each fully painted pixel of the span in order: such a pixel without shadow takes its colour from
 * there instead of computing it. `ed` (0: none): the level's edge list (level-tables.ts LevelEdges), the
 * span's row's blocks [e0, e1), the span starting at the level's pixel `i0`: its partly painted pixels
 * are written from there after the rest (the same bytes as from the planes).
 * The reference kernel's opaque rows (test/support/reference-kernel.ts), pixel for pixel, without the plate.
 */
export function opaqueSpan(
  n: i32, pm: usize, ps: usize, pd: usize, pq: usize, src: usize, pb: usize, rgb: usize, preShadowed: i32,
  pal: usize, pi: usize, ed: usize, e0: i32, e1: i32, i0: i32,
): void {
  if (src != rgb) memory.copy(rgb, src, <usize>n * 3);
  const hasShadow = ps != 0;
  const shadeIdle = hasShadow && preShadowed == 0;
  const usePal = pal != 0;
  for (let i = 0; i < n; i++) {
    const o = rgb + <usize>i * 3;
    if (i + 3 < n && load<u32>(pm + i) == 0xffffffff) {
      // shadowed pixels are computed; every fully painted pixel has an index entry all the same
      if (usePal && (!hasShadow || load<u32>(ps + i) == 0)) gather4(pi, pal, o);
      else paintedQuad(<usize>i, ps, pd, pq, o);
      if (usePal) pi += 16;
      i += 3;
      continue;
    }
    const m8 = <u32>load<u8>(pm + i);
    if (m8 == 255) {
      // a fully painted pixel short of a quad: single precision too (from the palette where it has one)
      if (usePal && (!hasShadow || load<u8>(ps + i) == 0)) gather1(pi, pal, o);
      else paintedOne(<usize>i, ps, pd, pq, o);
      if (usePal) pi += 4;
      continue;
    }
    if (m8 == 0) {
      // idle pixels inside the span (glass, tyres, trim): 16 at a time while neither plane has any
      if (i + 16 <= n) {
        let idle = v128.load(pm + i);
        if (shadeIdle) idle = v128.or(idle, v128.load(ps + i));
        if (!v128.any_true(idle)) {
          i += 15;
          continue;
        }
      }
      if (shadeIdle) {
        const s8 = <u32>load<u8>(ps + i);
        if (s8 != 0) {
          const sh = SHADED + (<usize>s8 << 8);
          store<u8>(o, load<u8>(sh + <usize>load<u8>(o)));
          store<u8>(o + 1, load<u8>(sh + <usize>load<u8>(o + 1)));
          store<u8>(o + 2, load<u8>(sh + <usize>load<u8>(o + 2)));
        }
      }
      continue;
    }
    // partly painted (the paint's edge): from the level's edge list after the loop where it has one
    if (ed != 0) continue;
    edgeInputs(<usize>i, m8, ps, pd, pq, pb + <usize>i * 3);
    edgeOne(hasShadow, o);
  }
  if (ed != 0) {
    // the span's edge pixels, a block of four at a time, read in order (no plane touched)
    const o0 = rgb - <usize>i0 * 3; // wraps like the pixel offsets it is added to
    for (let j = e0; j < e1; j++) edgeQuad(ed + <usize>j * EDGE_BLOCK, hasShadow, o0);
  }
}

/**
 * `n` pixels of one row with the transparent background: coverage (u8) at `pc`, the other planes
 * as in `opaqueSpan` (the base only read), RGBA with straight alpha written at `out`; (gr, gg, gb)
 * the backdrop at this row. ../kernel.ts `transparentRange`, pixel for pixel, without the plate.
 */
export function transparentSpan(n: i32, pc: usize, pm: usize, ps: usize, pd: usize, pq: usize, rgb: usize, out: usize, gr: f64, gg: f64, gb: f64): void {
  const hasShadow = ps != 0;
  for (let i = 0; i < n; i++) {
    const a = <f64>load<u8>(pc + i) * INV8;
    const s8 = hasShadow ? <u32>load<u8>(ps + i) : 0;
    const ra = 1.0 - a;
    const A = a + ra * <f64>s8 * INV8;
    const o = out + (<usize>i << 2);
    let r: f64 = 0, g: f64 = 0, b: f64 = 0;
    if (A > 0) {
      // the whole formula (../kernel.ts paintPixel)
      const bi = rgb + <usize>i * 3;
      const m8 = <u32>load<u8>(pm + i);
      if (m8 != 0) {
        const m = <f64>m8 * INV8;
        const D = <f64>load<u16>(pd + (<usize>i << 1)) * INV16;
        const S = <f64>load<u16>(pq + (<usize>i << 1)) * INV16;
        underPaint(bi, m, D, S);
        paintColour(D, S);
        r = ur + m * cr;
        g = ug + m * cg;
        b = ub + m * cb;
      } else {
        r = lin(<u32>load<u8>(bi));
        g = lin(<u32>load<u8>(bi + 1));
        b = lin(<u32>load<u8>(bi + 2));
      }
      // the car premultiplied: the backdrop seen at partial coverage taken out
      let pr = r - ra * gr;
      let pg = g - ra * gg;
      let pb = b - ra * gb;
      pr = pr < 0 ? 0 : pr > a ? a : pr;
      pg = pg < 0 ? 0 : pg > a ? a : pg;
      pb = pb < 0 ? 0 : pb > a ? a : pb;
      const inv = 1.0 / A;
      r = pr * inv;
      g = pg * inv;
      b = pb * inv;
    }
    store<u8>(o, enc(r));
    store<u8>(o + 1, enc(g));
    store<u8>(o + 2, enc(b));
    // Math.round(A · 255): halves round up (f64.nearest would round them to even)
    let alpha: u32 = 255;
    if (A < 1) {
      const v = A * 255.0;
      const fl = Math.floor(v);
      alpha = <u32>(<i32>fl) + (v - fl >= 0.5 ? 1 : 0);
    }
    store<u8>(o + 3, alpha);
  }
}
