import fs from 'node:fs';
import { SRGB8_TO_LINEAR } from '../../../shared/color/srgb.ts';
import { ARENA_HEADER_BYTES, ARENA_SLOTS, type LayerArena } from './arena.ts';
import { generalRow, overlayRow, transparentRange, type KernelInput } from './kernel.ts';
import { SHADED, encodeTables } from '../../color/srgb8.ts';

/** The compiled kernel (wasm/kernel.ts, `npm run build:kernel`), beside this module in the source tree and in dist/. */
export const KERNEL_WASM_URL = new URL('./wasm/kernel.wasm', import.meta.url);

/** The project's lib (ES2023, no DOM) has no WebAssembly types: the little used here. */
interface WasmGlobal {
  value: number;
}
interface WasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
  Memory: new (d: { initial: number; maximum: number; shared: true }) => WasmMemory;
};

interface Exports {
  LO: WasmGlobal;
  THR: WasmGlobal;
  LIN: WasmGlobal;
  SHADED: WasmGlobal;
  THR32: WasmGlobal;
  LO16: WasmGlobal;
  SCRATCH: WasmGlobal;
  HEADER: WasmGlobal;
  setup(tr: number, tg: number, tb: number, nr: number, ng: number, nb: number, gain: number, floor: number): void;
  opaqueSpan(
    n: number, pm: number, ps: number, pd: number, pq: number, src: number, pb: number, rgb: number, preShadowed: number,
    pal: number, pi: number, ed: number, e0: number, e1: number, i0: number,
  ): void;
  paletteColours(n: number, pd: number, pq: number, out: number): void;
  transparentSpan(n: number, pc: number, pm: number, ps: number, pd: number, pq: number, rgb: number, out: number, gr: number, gg: number, gb: number): void;
}

/** An instance of the kernel on one memory (the kernel imports its memory). */
interface Bound {
  x: Exports;
  memory: { readonly buffer: SharedArrayBuffer };
  mem8: Uint8Array;
  /** The arena's id and key (LayerArena); 0 and '' for the thread's own scratch memory. */
  id: number;
  key: string;
}

/**
 * Instances kept per thread on layers arenas, most recently used last. Renders of one view at one
 * size reuse one; each holds its arena's memory alive, so the number is small and the compositor's
 * `forget` (the Layers left the asset cache) drops an arena's instance at once.
 */
const ARENA_INSTANCES = 4;

/**
 * The cpu backend's kernel: the opaque rows' runs (the hot part: paint and shadow on the studio
 * backdrop) computed by WebAssembly; plate pixels and transparent pictures by kernel.ts's per-pixel
 * JavaScript. The tests hold its bytes to the whole-picture JavaScript reference
 * (test/support/reference-kernel.ts).
 *
 * Layers made by the asset store have their planes in one shared WebAssembly memory (arena.ts
 * `allocPlanes`); the module is instantiated on that memory (once per arena per thread, a few
 * kept) and reads the planes in place. An output picture that is the arena's own (LayerArena.output,
 * `outInArena`) is written in place too; any other gets each span written into this thread's scratch
 * row in the arena (`slot`) and copied out (3 bytes a pixel: about 1 ms of a 2400 px composite on the
 * development machine, which writing in place saves; docs/performance-renderer.md). Inputs whose
 * planes are not in an arena (tests, hand-made layers) go through an instance on this thread's own
 * memory, each row's span copied in and out as before.
 *
 * With the transparent background every pixel of the row is computed (whole rows). Rows the plate
 * crosses get the plate in JavaScript: on opaque rows from its overlay (plate-overlay.ts: the solid
 * plate's bytes, and the whole formula only at its edge), otherwise the plate's box again through the
 * whole formula with the plate (kernel.ts). Loading throws, loudly, if the module is missing or broken.
 */
export class WasmKernel {
  private readonly module: object;
  private readonly own: Bound;
  private readonly arenas: Bound[] = [];
  private readonly scratch: number;
  private cap = 0;
  private mem16!: Uint16Array;
  private pm = 0;
  private ps = 0;
  private pd = 0;
  private pq = 0;
  private rgb = 0;
  private pc = 0;
  private rgba = 0;
  private bs = 0;

  constructor(bytes: Uint8Array = fs.readFileSync(KERNEL_WASM_URL)) {
    this.module = new WebAssembly.Module(bytes);
    // grows as wide pictures need (the module declares at most 65536 pages)
    this.own = this.instantiate(new WebAssembly.Memory({ initial: ARENA_HEADER_BYTES / 65536, maximum: 65536, shared: true }), 0, '');
    if (this.own.x.HEADER.value !== ARENA_HEADER_BYTES) {
      throw new Error(`cpu kernel (wasm) reserves ${this.own.x.HEADER.value} bytes, arena.ts ARENA_HEADER_BYTES is ${ARENA_HEADER_BYTES}`);
    }
    this.scratch = this.own.x.SCRATCH.value;
    this.ensure(4096);
  }

  /** The module on `memory`, with the tables written into its header (the same bytes every time, so instances on one arena in several threads agree). */
  private instantiate(memory: { readonly buffer: SharedArrayBuffer }, id: number, key: string): Bound {
    const instance = new WebAssembly.Instance(this.module, { env: { abort: wasmAbort, memory } });
    const x = instance.exports as unknown as Exports;
    const { lo, thr, thr32, lo16 } = encodeTables();
    const u8 = new Uint8Array(memory.buffer);
    const f64 = new Float64Array(memory.buffer, 0, ARENA_HEADER_BYTES / 8);
    u8.set(lo, x.LO.value);
    f64.set(thr, x.THR.value / 8);
    f64.set(SRGB8_TO_LINEAR, x.LIN.value / 8);
    u8.set(SHADED, x.SHADED.value);
    new Float32Array(memory.buffer, x.THR32.value, 256).set(thr32);
    new Uint16Array(memory.buffer, x.LO16.value, 65536).set(lo16);
    return { x, memory, mem8: u8, id, key };
  }

  /** The instance on `arena`, made on first use; the least recently used one dropped past ARENA_INSTANCES. */
  private bind(arena: LayerArena): Bound {
    const i = this.arenas.findIndex((b) => b.id === arena.id);
    if (i >= 0) {
      const b = this.arenas[i]!;
      if (i !== this.arenas.length - 1) this.arenas.push(...this.arenas.splice(i, 1));
      return b;
    }
    const b = this.instantiate(arena.memory, arena.id, arena.key);
    this.arenas.push(b);
    if (this.arenas.length > ARENA_INSTANCES) this.arenas.shift();
    return b;
  }

  /** The Layers `key` left the cache: drop the instances on its arenas, so their memory can be freed. */
  forget(key: string): void {
    for (let i = this.arenas.length - 1; i >= 0; i--) if (this.arenas[i]!.key === key) this.arenas.splice(i, 1);
  }

  /** Arenas this thread holds an instance on (tests). */
  get arenaInstances(): number {
    return this.arenas.length;
  }

  /** Room in the own scratch for a span of `n` pixels: paint, shadow, coverage (u8), diffuse, specular (u16), RGB, RGBA, base (RGB). */
  private ensure(n: number): void {
    if (n <= this.cap) return;
    const cap = Math.ceil(n / 64) * 64;
    const need = this.scratch + cap * 17;
    const mem = this.own.memory as WasmMemory;
    if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
    this.cap = cap;
    this.pd = this.scratch;
    this.pq = this.pd + cap * 2;
    this.pm = this.pq + cap * 2;
    this.ps = this.pm + cap;
    this.rgb = this.ps + cap;
    this.pc = this.rgb + cap * 3;
    this.rgba = this.pc + cap;
    this.bs = this.rgba + cap * 4;
    // a shared memory's buffer is replaced when it grows
    this.own.mem8 = new Uint8Array(mem.buffer);
    this.mem16 = new Uint16Array(mem.buffer);
  }

  /**
   * This render's colour of each entry of its level's palette (level-tables.ts LevelPalette) into
   * `slot` (one of its `colours`, which the caller holds until the composite is done), and the
   * input marked to use it (`paletteAt`). False, and nothing done, where the input has no palette.
   */
  paletteColours(k: KernelInput, slot: Uint8Array): boolean {
    const arena = k.arena ?? null;
    const p = arena?.palette ?? null;
    if (arena === null || p === null || k.backdrop !== null || !p.colours.includes(slot)) return false;
    const b = this.bind(arena);
    b.x.setup(k.color[0], k.color[1], k.color[2], k.neutral[0], k.neutral[1], k.neutral[2], k.gain, k.floor);
    b.x.paletteColours(p.size, p.diffuse.byteOffset, p.specular.byteOffset, slot.byteOffset);
    k.paletteAt = slot.byteOffset;
    return true;
  }

  /**
   * Rows [y0, y1) of the picture: the reference kernel's bytes (test/support/reference-kernel.ts), but for painted pixels of opaque
   * rows in single precision (wasm/kernel.ts `paintedQuad`, `edgeQuad`: at most a code off), and the plate from its
   * overlay when the input has one (its pixels' bytes as sampling it gives). `slot`: this thread's
   * scratch row in the layers' arena (0 on the main thread; each worker its own, below ARENA_SLOTS).
   */
  compositeRows(k: KernelInput, y0: number, y1: number, slot = 0): void {
    const arena = k.arena ?? null;
    let b: Bound;
    let dst = 0;
    if (arena !== null) {
      if (!(slot >= 0 && slot < ARENA_SLOTS)) throw new Error(`cpu kernel: scratch slot ${slot} outside [0, ${ARENA_SLOTS})`);
      b = this.bind(arena);
      dst = arena.scratch + slot * arena.slotBytes;
    } else {
      b = this.own;
      this.ensure(k.width);
    }
    b.x.setup(k.color[0], k.color[1], k.color[2], k.neutral[0], k.neutral[1], k.neutral[2], k.gain, k.floor);
    if (k.backdrop !== null && k.coverage !== null) this.transparentRows(b, arena !== null, dst, k, y0, y1);
    else this.opaqueRows(b, arena !== null, dst, k, y0, y1);
  }

  /**
   * Every pixel of each row (coverage has no runs); the plate's pixels again in JavaScript. In place
   * (`direct`): the planes read where they are, RGBA written at `dst`; otherwise copied into the own scratch.
   */
  private transparentRows(bd0: Bound, direct: boolean, dst: number, k: KernelInput, y0: number, y1: number): void {
    const { width, height, base, paint, diffuse, specular, shadow, out } = k;
    const coverage = k.coverage!;
    const bd = k.backdrop!;
    const x = bd0.x;
    const mem8 = bd0.mem8;
    const mem16 = this.mem16;
    const pb = k.plate ? k.plate.bbox : null;
    for (let y = y0; y < y1; y++) {
      const i0 = y * width;
      const i1 = i0 + width;
      let pc: number, pm: number, ps: number, pd: number, pq: number, rgb: number, rgba: number;
      if (direct) {
        pc = coverage.byteOffset + i0;
        pm = paint.byteOffset + i0;
        ps = shadow === null ? 0 : shadow.byteOffset + i0;
        pd = diffuse.byteOffset + i0 * 2;
        pq = specular.byteOffset + i0 * 2;
        rgb = base.byteOffset + i0 * 3;
        rgba = dst;
      } else {
        ({ pc, pm, pd, pq, rgb, rgba } = this);
        ps = shadow === null ? 0 : this.ps;
        mem8.set(coverage.subarray(i0, i1), pc);
        mem8.set(paint.subarray(i0, i1), pm);
        if (shadow !== null) mem8.set(shadow.subarray(i0, i1), ps);
        mem16.set(diffuse.subarray(i0, i1), pd >> 1);
        mem16.set(specular.subarray(i0, i1), pq >> 1);
        mem8.set(base.subarray(i0 * 3, i1 * 3), rgb);
      }
      // the backdrop at this row, as kernel.ts transparentRange computes it
      const t = height > 1 ? y / (height - 1) : 0;
      const gr = bd.top[0] + (bd.bottom[0] - bd.top[0]) * t;
      const gg = bd.top[1] + (bd.bottom[1] - bd.top[1]) * t;
      const gb = bd.top[2] + (bd.bottom[2] - bd.top[2]) * t;
      x.transparentSpan(width, pc, pm, ps, pd, pq, rgb, rgba, gr, gg, gb);
      out.set(mem8.subarray(rgba, rgba + width * 4), i0 * 4);
      if (pb !== null && y >= pb[1] && y < pb[3] && pb[0] < pb[2]) transparentRange(k, y, pb[0], pb[2]);
    }
  }

  private opaqueRows(bd: Bound, direct: boolean, dst: number, k: KernelInput, y0: number, y1: number): void {
    const { width, base, paint, diffuse, specular, shadow, out } = k;
    // with the shadow, rows start as the shadowed base (layers.ts), and unpainted pixels are done
    const start = shadow !== null && k.shadowedBase !== null ? k.shadowedBase : base;
    const preShadowed = start === base ? 0 : 1;
    const x = bd.x;
    const mem8 = bd.mem8;
    const mem16 = this.mem16;
    const { pm, pd, pq, rgb, bs } = this;
    const ps = shadow === null ? 0 : this.ps;
    const pb = k.plate ? k.plate.bbox : null;
    const rowStart = k.runs ? k.runs.rowStart : null;
    const xs = k.runs ? k.runs.xs : null;
    // out is the start outside the spans: copied between one span's end and the next one's start
    // (contiguous across rows), so the spans' pixels are read and written once
    // (compared by place, not identity: a worker's copy of the input has its own view objects)
    const own = k.arena?.output ?? null;
    const inPlace = direct && k.outInArena === true && own !== null && out.byteOffset === own.byteOffset && out.length === own.length;
    // the level's palette, its colours computed for this render (paletteColours): on the planes in place
    const palette = direct && (k.paletteAt ?? 0) > 0 ? (k.arena!.palette ?? null) : null;
    const pal = palette === null ? 0 : k.paletteAt!;
    const palIndex = palette === null ? 0 : palette.index.byteOffset;
    const palRows = palette === null ? null : palette.rowStart;
    // the level's edge list (its partly painted pixels' inputs, read in order): on the planes in place
    const edges = direct ? (k.edges ?? null) : null;
    const ed = edges === null ? 0 : edges.at;
    const edRows = edges === null ? null : edges.rowStart;
    let done = y0 * width;
    const copyStart = (to: number) => {
      if (to > done) out.set(start.subarray(done * 3, to * 3), done * 3);
      done = to;
    };
    for (let y = y0; y < y1; y++) {
      const row = y * width;
      let a = 0;
      let b = width;
      if (rowStart !== null && xs !== null) {
        const r0 = rowStart[y]!;
        const r1 = rowStart[y + 1]!;
        a = r0 < r1 ? xs[2 * r0]! : 0;
        b = r0 < r1 ? xs[2 * r1 - 1]! : 0;
      }
      if (a < b) {
        const i0 = row + a;
        const i1 = row + b;
        const n = b - a;
        copyStart(i0);
        if (direct) {
          // the planes in place; the span written into the output itself when it is the arena's,
          // else into this thread's scratch row and copied out; the kernel copies the start in first
          const o = inPlace ? out.byteOffset + i0 * 3 : dst;
          x.opaqueSpan(
            n,
            paint.byteOffset + i0,
            shadow === null ? 0 : shadow.byteOffset + i0,
            diffuse.byteOffset + i0 * 2,
            specular.byteOffset + i0 * 2,
            start.byteOffset + i0 * 3,
            base.byteOffset + i0 * 3,
            o,
            preShadowed,
            pal,
            pal === 0 ? 0 : palIndex + palRows![y]! * 4,
            ed,
            edges === null ? 0 : edRows![y]!,
            edges === null ? 0 : edRows![y + 1]!,
            i0,
          );
          if (!inPlace) out.set(mem8.subarray(dst, dst + n * 3), i0 * 3);
        } else {
          mem8.set(paint.subarray(i0, i1), pm);
          if (shadow !== null) mem8.set(shadow.subarray(i0, i1), ps);
          mem16.set(diffuse.subarray(i0, i1), pd >> 1);
          mem16.set(specular.subarray(i0, i1), pq >> 1);
          mem8.set(start.subarray(i0 * 3, i1 * 3), rgb);
          if (preShadowed) mem8.set(base.subarray(i0 * 3, i1 * 3), bs);
          x.opaqueSpan(n, pm, ps, pd, pq, rgb, preShadowed ? bs : rgb, rgb, preShadowed, 0, 0, 0, 0, 0, 0);
          out.set(mem8.subarray(rgb, rgb + n * 3), i0 * 3);
        }
        done = i1;
      }
      if (pb !== null && y >= pb[1] && y < pb[3] && pb[0] < pb[2]) {
        copyStart(row + width); // the plate's box may reach beyond the span
        const ov = k.plate!.overlay ?? null;
        if (ov !== null) overlayRow(k, ov, y);
        else generalRow(k, y, pb[0], pb[2]);
      }
    }
    copyStart(y1 * width);
  }
}

function wasmAbort(): never {
  throw new Error('cpu kernel (wasm) aborted');
}
