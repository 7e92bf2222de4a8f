// AssemblyScript (not the project's TypeScript): the cpu backend's compositing kernel for the opaque
// (studio backdrop) rows, compiled to kernel.wasm by `npm run build:kernel`. The same formula as
// ../kernel.ts (the reference implementation, docs/asset-format.md "Compositing") in the same f64
// arithmetic, so both give the same bytes; the tables (sRGB decode, exact encode, shadowed backdrop)
// are the JavaScript ones, copied into this module's memory by wasm-kernel.ts at instantiation.
//
// Memory: [0, TABLES_END) tables; from SCRATCH one row's span of each plane (wasm-kernel.ts copies
// the span in, calls `opaqueSpan`, copies the RGB back). The module's memory is its own (not shared),
// one per worker; the layers stay in their SharedArrayBuffers.

/** Encode table: LO[bucket] (u8 × 4096), THR[code] (f64 × 256): see ../srgb8.ts. */
export const LO: usize = 0;
export const THR: usize = 4096;
/** sRGB code → linear light (f64 × 256). */
export const LIN: usize = THR + 256 * 8;
/** SHADED[shadow << 8 | code] (u8 × 65536). */
export const SHADED: usize = LIN + 256 * 8;
export const SCRATCH: usize = SHADED + 65536;

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

/** round(255 · srgb_encode(clamp(c, 0, 1))), exactly as ../srgb8.ts `encodeSrgb8`. */
// @ts-ignore: decorator
@inline function enc(c: f64): u32 {
  if (c <= 0) return 0;
  if (c >= 1) return 255;
  const v = <u32>load<u8>(LO + <usize>(<i32>(c * 4096.0)));
  return c >= load<f64>(THR + (<usize>v << 3)) ? v + 1 : v;
}

// @ts-ignore: decorator
@inline function lin(code: u32): f64 {
  return load<f64>(LIN + (<usize>code << 3));
}

/**
 * `n` pixels of one row: paint (u8) at `pm`, shadow (u8) at `ps` (0: no shadow), diffuse and
 * specular (u16) at `pd`, `pq`, and the base (RGB u8) at `rgb`, overwritten with the output.
 * ../kernel.ts `opaqueRows`, pixel for pixel, without the plate.
 */
export function opaqueSpan(n: i32, pm: usize, ps: usize, pd: usize, pq: usize, rgb: usize): void {
  const hasShadow = ps != 0;
  for (let i = 0; i < n; i++) {
    const m8 = <u32>load<u8>(pm + i);
    const o = rgb + <usize>i * 3;
    if (m8 == 0) {
      if (hasShadow) {
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
    const D = <f64>load<u16>(pd + (<usize>i << 1)) * INV16;
    const S = <f64>load<u16>(pq + (<usize>i << 1)) * INV16;
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
    if (m8 != 255) {
      const m = <f64>m8 * INV8;
      const rest = 1.0 - m;
      let br = lin(<u32>load<u8>(o)) - m * (nr * D + S);
      let bg = lin(<u32>load<u8>(o + 1)) - m * (ng * D + S);
      let bb = lin(<u32>load<u8>(o + 2)) - m * (nb * D + S);
      br = br < 0 ? 0 : br > rest ? rest : br;
      bg = bg < 0 ? 0 : bg > rest ? rest : bg;
      bb = bb < 0 ? 0 : bb > rest ? rest : bb;
      r = br + m * r;
      g = bg + m * g;
      b = bb + m * b;
    }
    if (hasShadow) {
      const s8 = <u32>load<u8>(ps + i);
      if (s8 != 0) {
        const f = 1.0 - <f64>s8 * INV8;
        r *= f;
        g *= f;
        b *= f;
      }
    }
    store<u8>(o, enc(r));
    store<u8>(o + 1, enc(g));
    store<u8>(o + 2, enc(b));
  }
}
