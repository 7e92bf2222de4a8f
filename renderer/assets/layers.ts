import sharp from 'sharp';
import { SRGB8_TO_LINEAR, LINEAR_LUT_SIZE, LINEAR_TO_SRGB8 } from '../color/srgb.ts';
import { SHADED } from '../color/srgb8.ts';
import { LIGHT8_TO_LINEAR } from './light-encoding.ts';
import { runNow, runPaced, type Sliced } from './paced.ts';

/**
 * The decoded layers of one view at one size, in shared memory so the cpu workers read them
 * without copies: made here, all of a Layers' planes are views into one shared WebAssembly memory
 * (`arena`), so the cpu backend's wasm kernel reads them in place. base: RGB 8-bit sRGB; paint, shadow, coverage: 8-bit; diffuse, specular: 16-bit
 * linear (whatever their encoding on disk).
 */
export interface PlaneSet {
  base: Uint8Array;
  paint: Uint8Array;
  diffuse: Uint16Array;
  specular: Uint16Array;
  shadow: Uint8Array | null;
  coverage: Uint8Array | null;
}

export interface Layers extends PlaneSet {
  key: string;
  width: number;
  height: number;
  /**
   * The base with the floor shadow already applied (RGB): what a render with the shadow shows
   * wherever there is no paint, whatever the colour. Made once per level for the cpu backend (the
   * asset store's `shadowedBase` option; the gl backend does not use it), so the kernel copies it and
   * never visits the shadow-only pixels (about half the pixels it touched before).
   */
  shadowedBase?: Uint8Array;
  /**
   * Where a render differs from its starting picture (layers.ts `activeRuns`): the runs of pixels with
   * paint when there is a `shadowedBase` (the start with the shadow), else of pixels with paint or
   * shadow. Absent: every pixel is visited.
   */
  runs?: ActiveRuns;
  /** A pre-scaled level's place in the full size (reduceLayers); absent: the full size itself. */
  level?: LevelGeometry;
  /**
   * A digest of the layer files (and how they are decoded) this level was made from, where the asset
   * store keeps level files (asset-store.ts `sourceDigest`): its level file is named by it.
   */
  source?: string;
  /** The shared WebAssembly memory the planes are views of (allocPlanes); absent: separate SharedArrayBuffers. */
  arena?: LayerArena;
  bytes: number;
}

/** The project's lib (ES2023, no DOM) has no WebAssembly types: the little used here. */
export interface SharedWasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: { Memory: new (d: { initial: number; maximum: number; shared: true }) => SharedWasmMemory };

/**
 * Bytes at the start of every arena reserved for the cpu kernel's own use (its tables: about 201 KiB;
 * wasm/kernel.ts `HEADER`, which the kernel's loader checks against this).
 */
export const ARENA_HEADER_BYTES = 256 * 1024;
/** Scratch rows after the header, one per thread compositing from an arena (the main thread's is slot 0): room for 64 workers, a 64-core node, for about 0.6 MB an arena at 2400 px. */
export const ARENA_SLOTS = 65;
const WASM_PAGE = 65536;

/**
 * One Layers' planes in one shared WebAssembly.Memory of the size they need (it grows only by the
 * level's tables, `withLevelTables`, into room its maximum reserves): [0, ARENA_HEADER_BYTES) the
 * kernel's, then ARENA_SLOTS scratch rows of `slotBytes` (a row of RGBA), then the planes at 64-byte
 * aligned offsets, then the tables. Freed like a SharedArrayBuffer, once no
 * isolate references the memory (the cpu workers drop their instances on it when the Layers is
 * evicted: cpu-backend.ts `forget`).
 */
export interface LayerArena {
  memory: SharedWasmMemory;
  /** Unique in the process: a key decoded again after eviction gets a new arena. */
  id: number;
  key: string;
  scratch: number;
  slotBytes: number;
  /**
   * An output picture (RGB, 3 bytes a pixel) inside the arena, for the cpu backend (allocPlanes'
   * `output`): an opaque render of these layers may composite into it, and the wasm kernel then
   * writes its spans there in place instead of into a scratch row copied out (cpu-backend.ts lends
   * it to one render at a time). null: none (the gl backend's layers).
   */
  output: Uint8Array | null;
  /**
   * The level's palette (`withLevelTables`), added after the Layers are made (the asset store builds
   * it in the background, so a cold render does not wait for it) when the arena has an output picture
   * and it pays; null: none (yet). Set once, never changed after.
   */
  palette: LevelPalette | null;
  /** The level's edge list (LevelEdges), added like the palette, before it; null: none (yet). Set once. */
  edges: LevelEdges | null;
  /** The level's fully painted runs (FullRuns), added after its edge list, only with one; null: none (yet). Set once. */
  fullRuns: FullRuns | null;
  /** `withLevelTables` ran on this arena (whatever it found): never twice, as each try grows the arena. */
  tablesTried: boolean;
}

/**
 * A level's partly painted pixels (0 < paint < 255: the paint's edge, panel gaps, trim) with their
 * inputs ready in single precision, in the level's arena: the kernel reads them in order, four at a
 * time (wasm/kernel.ts `edgeQuad`), where it would otherwise fetch each from four scattered planes
 * and compute it alone (about 45 ns a pixel on the development machine, a quarter of a baked 2400 px
 * composite; docs/performance-renderer.md). The values are exactly those the kernel computes from
 * the planes (`edgeInputs`), so a render gives the same bytes with or without the list.
 */
export interface LevelEdges {
  /** Partly painted pixels (in the runs). */
  count: number;
  /**
   * The list's offset in the arena: blocks of four entries, EDGE_BLOCK_BYTES each (wasm/kernel.ts
   * EDGE_BLOCK: eight fields of four lanes); a row's last block is filled up with its last pixel
   * again (computed twice, to the same bytes).
   */
  at: number;
  /** Row y's blocks are [rowStart[y], rowStart[y + 1]) (height + 1 entries). */
  rowStart: Int32Array;
}

/**
 * A level's runs of fully painted pixels (paint 255), in its arena: with its edge list, everything a
 * render changes in the runs of the layers (with the shadowed base as the start), so the kernel writes
 * these runs and the edge list's pixels and never walks the paint plane (wasm/kernel.ts `paintedRun`).
 */
export interface FullRuns {
  /** Runs. */
  count: number;
  /** The runs' offset in the arena: a pair of u32 each, the first pixel, and the length with bit 31 set where any of its pixels has shadow. */
  at: number;
  /** Row y's runs are [rowStart[y], rowStart[y + 1]) (height + 1 entries). */
  rowStart: Int32Array;
}

/** A level gets its fully painted runs when they are at most this share of its pixels (what the arena reserves room for). */
export const FULL_RUNS_MAX_SHARE = 0.25;

function fullRunsBytes(runs: number, height: number): number {
  return runs * 8 + (height + 1) * 4 + 2 * 64;
}

/** Bytes of a block of four LevelEdges entries (wasm/kernel.ts EDGE_BLOCK). */
export const EDGE_BLOCK_BYTES = 128;
/** A level gets an edge list when its partly painted pixels are at most this share of its pixels (what the arena reserves room for). */
export const EDGES_MAX_SHARE = 0.25;

/** Bytes of an edge list of `entries` partly painted pixels over `height` rows at most. */
function edgesBytes(entries: number, height: number): number {
  return (Math.ceil(entries / 4) + height) * EDGE_BLOCK_BYTES + (height + 1) * 4 + 2 * 64;
}

/**
 * The distinct lightings (diffuse, specular) of a level's fully painted pixels and each such pixel's
 * entry, in the level's arena: a render computes each lighting's colour once (wasm/kernel.ts
 * `paletteColours`, into one of its `colours` slots) and the kernel gives each
 * fully painted pixel its entry's colour instead of computing it per pixel. A level baked with 8-bit
 * light repeats its lightings a lot (98 % of a 2400 px baked sedan's painted pixels), a resized or
 * 16-bit one less (about 60 %), so a level only gets one where at most half its painted pixels'
 * lightings are distinct (PALETTE_MAX_SHARE).
 */
export interface LevelPalette {
  /** Entries: a multiple of 4, the last few padded with zero lighting. */
  size: number;
  diffuse: Uint16Array;
  specular: Uint16Array;
  /** The entry of each fully painted pixel (paint 255), in raster order. */
  index: Uint32Array;
  /** Row y's fully painted pixels are index[rowStart[y]] onwards (height + 1 entries). */
  rowStart: Int32Array;
  /**
   * PALETTE_COLOUR_SLOTS renders' colours at once: 3 bytes an entry each, and 4 more so that the
   * last can be read as a u32. A composite holds one from its start to its end (cpu-backend.ts).
   */
  colours: Uint8Array[];
}

/** A level gets a palette when its distinct lightings are at most this share of its fully painted pixels (LevelPalette). */
export const PALETTE_MAX_SHARE = 0.5;
/** Composites of one level that can use its palette at once (more at once compute their pixels): the renderer's usual concurrency. */
export const PALETTE_COLOUR_SLOTS = 4;

/** Bytes of a palette of `entries` entries over `painted` fully painted pixels and `height` rows (what the arena reserves room for). */
function paletteBytes(entries: number, painted: number, height: number): number {
  return painted * 4 + (height + 1) * 4 + entries * (2 + 2) + PALETTE_COLOUR_SLOTS * (entries * 3 + 4 + 64) + 4 * 64;
}

let nextArenaId = 1;

export interface Planes extends PlaneSet {
  arena: LayerArena;
  /** Present when `shadow` is: Layers.shadowedBase, filled by makeLayers. */
  shadowedBase?: Uint8Array;
}

/**
 * Zeroed planes of a width × height view in a new arena (LayerArena); `shadowedBase` (default true)
 * reserves that plane too when there is a shadow, `output` (default as `shadowedBase`: the cpu
 * backend's) an output picture. Untouched pages cost no memory until written, but the cache counts
 * the whole arena (layersOf), the output picture included.
 */
export function allocPlanes(
  key: string,
  width: number,
  height: number,
  has: { shadow: boolean; coverage: boolean; shadowedBase?: boolean; output?: boolean },
): Planes {
  const n = width * height;
  const align = (x: number) => Math.ceil(x / 64) * 64;
  const slotBytes = align(width * 4);
  let end = ARENA_HEADER_BYTES + ARENA_SLOTS * slotBytes;
  const at = (bytes: number) => {
    const o = end;
    end = align(end + bytes);
    return o;
  };
  const oBase = at(n * 3);
  const oPaint = at(n);
  const oDiffuse = at(n * 2);
  const oSpecular = at(n * 2);
  const oShadow = has.shadow ? at(n) : -1;
  const oShadowedBase = has.shadow && has.shadowedBase !== false ? at(n * 3) : -1;
  const oCoverage = has.coverage ? at(n) : -1;
  const withOutput = has.output ?? has.shadowedBase !== false;
  const oOutput = withOutput ? at(n * 3) : -1;
  const pages = Math.ceil(end / WASM_PAGE);
  // with the output picture the arena may grow by its tables (withLevelTables: reserved address space
  // only), in four steps (edge list, runs, the palette's index, its entries), each rounded up to pages
  const tables = edgesBytes(Math.floor(n * EDGES_MAX_SHARE), height) + fullRunsBytes(Math.floor(n * FULL_RUNS_MAX_SHARE), height) + paletteBytes(Math.ceil((n * PALETTE_MAX_SHARE) / 4) * 4, n, height);
  const room = withOutput ? Math.ceil(tables / WASM_PAGE) + 4 : 0;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages + room, shared: true });
  const buf = memory.buffer;
  return {
    base: new Uint8Array(buf, oBase, n * 3),
    paint: new Uint8Array(buf, oPaint, n),
    diffuse: new Uint16Array(buf, oDiffuse, n),
    specular: new Uint16Array(buf, oSpecular, n),
    shadow: oShadow >= 0 ? new Uint8Array(buf, oShadow, n) : null,
    coverage: oCoverage >= 0 ? new Uint8Array(buf, oCoverage, n) : null,
    ...(oShadowedBase >= 0 ? { shadowedBase: new Uint8Array(buf, oShadowedBase, n * 3) } : {}),
    arena: { memory, id: nextArenaId++, key, scratch: ARENA_HEADER_BYTES, slotBytes, output: oOutput >= 0 ? new Uint8Array(buf, oOutput, n * 3) : null, palette: null, edges: null, fullRuns: null, tablesTried: false },
  };
}

export function sharedU8(n: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(n));
}

export function sharedU16(n: number): Uint16Array {
  return new Uint16Array(new SharedArrayBuffer(n * 2));
}

function layerBytes(l: Omit<Layers, 'bytes' | 'key' | 'level'>): number {
  return (
    l.base.byteLength +
    l.paint.byteLength +
    l.diffuse.byteLength +
    l.specular.byteLength +
    (l.shadow?.byteLength ?? 0) +
    (l.shadowedBase?.byteLength ?? 0) +
    (l.coverage?.byteLength ?? 0)
  );
}

/**
 * Per row, the runs [x0, x1) of pixels with paint (or, with `shadow`, paint or shadow), in shared memory: row y's runs are
 * `xs[2r], xs[2r + 1]` for r in [rowStart[y], rowStart[y + 1]). Gaps shorter than RUN_GAP are
 * bridged (a run's start costs more than a few idle pixels).
 */
export interface ActiveRuns {
  rowStart: Int32Array;
  xs: Int32Array;
}

const RUN_GAP = 8;

function* activeRuns(width: number, height: number, paint: Uint8Array, shadow: Uint8Array | null): Sliced<ActiveRuns> {
  const rowStart = new Int32Array(new SharedArrayBuffer((height + 1) * 4));
  let xs: number[] = [];
  for (let y = 0; y < height; y++) {
    if ((y & 7) === 7) yield; // a row is a few microseconds here
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

/** Fully painted pixels (paint 255) of a level: all inside its runs (activeRuns), so only those are visited. */
function paintedInRuns(width: number, height: number, paint: Uint8Array, runs: ActiveRuns): number {
  const { rowStart: rs, xs } = runs;
  let painted = 0;
  for (let y = 0; y < height; y++) {
    for (let r = rs[y]!; r < rs[y + 1]!; r++) {
      for (let i = y * width + xs[2 * r]!, end = y * width + xs[2 * r + 1]!; i < end; i++) if (paint[i] === 255) painted++;
    }
  }
  return painted;
}

/**
 * levelPalette's work, a slice of rows at a time. Open addressing on the lighting (diffuse << 16 | specular as an int32),
 * the table at most half full and doubled as it fills, so that a baked level's few thousand lightings
 * stay in a small, cache-resident table; slots hold entry + 1 (0: empty).
 */
class PaletteBuilder {
  d: Uint16Array;
  sp: Uint16Array;
  entries = 0;
  private k = 0;
  private bits = 12;
  private keys = new Int32Array(1 << 12);
  private slots = new Int32Array(1 << 12);
  private lastKey = -1;
  private lastE = -1;

  constructor(
    private readonly width: number,
    private readonly height: number,
    private readonly most: number,
    private readonly paint: Uint8Array,
    private readonly diffuse: Uint16Array,
    private readonly specular: Uint16Array,
    private readonly runs: ActiveRuns,
    /** Where each fully painted pixel's entry goes (the arena's), and each row's first. */
    private readonly index: Uint32Array,
    private readonly rowStart: Int32Array,
  ) {
    this.d = new Uint16Array(1024);
    this.sp = new Uint16Array(1024);
  }

  /** Rows [y0, y1); false once the distinct lightings pass `most`. */
  rows(y0: number, y1: number): boolean {
    const { width, paint, diffuse, specular, index, most } = this;
    const { rowStart: rs, xs } = this.runs;
    let { k, entries, lastKey, lastE, keys, slots } = this;
    let shift = 32 - this.bits;
    let mask = (1 << this.bits) - 1;
    for (let y = y0; y < y1; y++) {
      this.rowStart[y] = k;
      for (let r = rs[y]!; r < rs[y + 1]!; r++) {
        for (let i = y * width + xs[2 * r]!, end = y * width + xs[2 * r + 1]!; i < end; i++) {
          if (paint[i] !== 255) continue;
          const key = (diffuse[i]! << 16) | specular[i]!;
          // neighbours often share a lighting: the last one found first (none yet: lastE < 0, as
          // every int32 is some lighting's key)
          if (key !== lastKey || lastE < 0) {
            let h = Math.imul(key, 0x9e3779b1) >>> shift;
            let e = slots[h]!;
            while (e !== 0 && keys[h] !== key) {
              h = (h + 1) & mask;
              e = slots[h]!;
            }
            if (e === 0) {
              if (entries === most) return false;
              e = ++entries;
              keys[h] = key;
              slots[h] = e;
              if (entries > this.d.length) this.growEntries();
              this.d[e - 1] = diffuse[i]!;
              this.sp[e - 1] = specular[i]!;
              if (entries * 2 > mask) {
                this.rehash(entries);
                ({ keys, slots } = this);
                shift = 32 - this.bits;
                mask = (1 << this.bits) - 1;
              }
            }
            lastKey = key;
            lastE = e - 1;
          }
          index[k++] = lastE;
        }
      }
    }
    if (y1 === this.height) this.rowStart[y1] = k;
    this.k = k;
    this.entries = entries;
    this.lastKey = lastKey;
    this.lastE = lastE;
    return true;
  }

  private growEntries(): void {
    const d = new Uint16Array(this.d.length * 2);
    const sp = new Uint16Array(this.d.length * 2);
    d.set(this.d);
    sp.set(this.sp);
    this.d = d;
    this.sp = sp;
  }

  /** The table twice as large, every entry placed again. */
  private rehash(entries: number): void {
    this.bits++;
    const mask = (1 << this.bits) - 1;
    const shift = 32 - this.bits;
    const keys = new Int32Array(1 << this.bits);
    const slots = new Int32Array(1 << this.bits);
    for (let e = 1; e <= entries; e++) {
      const key = (this.d[e - 1]! << 16) | this.sp[e - 1]!;
      let h = Math.imul(key, 0x9e3779b1) >>> shift;
      while (slots[h] !== 0) h = (h + 1) & mask;
      keys[h] = key;
      slots[h] = e;
    }
    this.keys = keys;
    this.slots = slots;
  }
}

/**
 * The level's palette (LevelPalette), placed at the end of `arena` (grown for it), or null where its
 * distinct lightings are more than PALETTE_MAX_SHARE of its fully painted pixels. The entries are
 * written straight into the arena (no copy of a few MB into fresh pages): where the palette does not
 * pay, that room stays unused, and counted (about 4 bytes a painted pixel, a sixth of the level).
 */
function* levelPalette(
  arena: LayerArena,
  width: number,
  height: number,
  paint: Uint8Array,
  diffuse: Uint16Array,
  specular: Uint16Array,
  runs: ActiveRuns,
  wanted: () => boolean,
): Sliced<LevelPalette | null> {
  const painted = paintedInRuns(width, height, paint, runs);
  yield;
  const most = Math.floor(painted * PALETTE_MAX_SHARE);
  if (most < 4) return null;
  const align = (x: number) => Math.ceil(x / 64) * 64;
  let end = align(arena.memory.buffer.byteLength);
  const at = (bytes: number) => {
    const o = end;
    end = align(end + bytes);
    return o;
  };
  const growTo = () => {
    const pages = Math.ceil((end - arena.memory.buffer.byteLength) / WASM_PAGE);
    if (pages > 0) arena.memory.grow(pages);
  };
  const oIndex = at(painted * 4);
  const oRows = at((height + 1) * 4);
  growTo();
  const index = new Uint32Array(arena.memory.buffer, oIndex, painted);
  const rowStart = new Int32Array(arena.memory.buffer, oRows, height + 1);
  const b = new PaletteBuilder(width, height, most, paint, diffuse, specular, runs, index, rowStart);
  for (let y = 0; y < height; y += 32) {
    if (!b.rows(y, Math.min(height, y + 32))) return null; // too many distinct lightings to pay
    yield;
    if (!wanted()) return null; // the level left the cache meanwhile
  }
  const size = Math.ceil(b.entries / 4) * 4;
  const oD = at(size * 2);
  const oS = at(size * 2);
  const oColours = Array.from({ length: PALETTE_COLOUR_SLOTS }, () => at(size * 3 + 4));
  growTo();
  const buf = arena.memory.buffer;
  const p: LevelPalette = {
    size,
    diffuse: new Uint16Array(buf, oD, size),
    specular: new Uint16Array(buf, oS, size),
    index,
    rowStart,
    colours: oColours.map((o) => new Uint8Array(buf, o, size * 3 + 4)),
  };
  p.diffuse.set(b.d.subarray(0, b.entries));
  p.specular.set(b.sp.subarray(0, b.entries));
  return p;
}

/** The f32 constants of wasm/kernel.ts (`<f32>INV16`, `<f32>INV8`). */
const INV16_F32 = Math.fround(1 / 65535);
const INV8_F32 = Math.fround(1 / 255);

/**
 * The level's edge list (LevelEdges), placed at the end of `arena` (grown for it), or null where it
 * has none or too many (EDGES_MAX_SHARE). Each value is the kernel's (`edgeInputs`): an integer
 * times a single-precision constant is exact in double precision (at most 16 + 24 bits), and so is 1
 * minus such a product, so rounding it once to single precision (a Float32Array store) gives the
 * single-precision operation's result; the linear base is the kernel's table value rounded the same way.
 */
function* levelEdges(arena: LayerArena, l: Layers, runs: ActiveRuns, wanted: () => boolean): Sliced<LevelEdges | null> {
  const { width, height, paint, diffuse, specular, base, shadow } = l;
  const { rowStart: rs, xs } = runs;
  const isEdge = (m: number) => m !== 0 && m !== 255;
  let count = 0;
  let blocks = 0;
  for (let y = 0; y < height; y++) {
    if ((y & 63) === 63) yield;
    let c = 0;
    for (let r = rs[y]!; r < rs[y + 1]!; r++) {
      for (let i = y * width + xs[2 * r]!, end = y * width + xs[2 * r + 1]!; i < end; i++) if (isEdge(paint[i]!)) c++;
    }
    count += c;
    blocks += Math.ceil(c / 4);
  }
  if (count > Math.floor(width * height * EDGES_MAX_SHARE)) return null;
  const align = (x: number) => Math.ceil(x / 64) * 64;
  const at = align(arena.memory.buffer.byteLength);
  const oRows = align(at + blocks * EDGE_BLOCK_BYTES);
  const pages = Math.ceil((oRows + (height + 1) * 4 - arena.memory.buffer.byteLength) / WASM_PAGE);
  if (pages > 0) arena.memory.grow(pages);
  const buf = arena.memory.buffer;
  const pos = new Uint32Array(buf, at, blocks * 32);
  const f = new Float32Array(buf, at, blocks * 32);
  const rowStart = new Int32Array(buf, oRows, height + 1);
  let k = 0; // entries written (blocks × 4 at each row's end)
  for (let y = 0; y < height; y++) {
    if ((y & 31) === 31) {
      yield;
      if (!wanted()) return null; // the level left the cache meanwhile
    }
    rowStart[y] = k / 4;
    let last = -1;
    const put = (i: number) => {
      // lane k % 4 of block k / 4: field j at 4 j (32-bit words)
      const o = (k >> 2) * 32 + (k & 3);
      pos[o] = i;
      f[o + 4] = diffuse[i]! * INV16_F32;
      f[o + 8] = specular[i]! * INV16_F32;
      f[o + 12] = paint[i]! * INV8_F32;
      f[o + 16] = SRGB8_TO_LINEAR[base[i * 3]!]!;
      f[o + 20] = SRGB8_TO_LINEAR[base[i * 3 + 1]!]!;
      f[o + 24] = SRGB8_TO_LINEAR[base[i * 3 + 2]!]!;
      const s8 = shadow === null ? 0 : shadow[i]!;
      f[o + 28] = s8 === 0 ? 1 : 1 - Math.fround(s8 * INV8_F32);
      k++;
    };
    for (let r = rs[y]!; r < rs[y + 1]!; r++) {
      for (let i = y * width + xs[2 * r]!, end = y * width + xs[2 * r + 1]!; i < end; i++) {
        if (!isEdge(paint[i]!)) continue;
        put(i);
        last = i;
      }
    }
    while ((k & 3) !== 0) put(last);
  }
  rowStart[height] = k / 4;
  return { count, at, rowStart };
}

/** The level's fully painted runs (FullRuns), placed at the end of `arena` (grown for it), or null where there are too many (FULL_RUNS_MAX_SHARE). */
function* levelFullRuns(arena: LayerArena, l: Layers, runs: ActiveRuns, wanted: () => boolean): Sliced<FullRuns | null> {
  const { width, height, paint, shadow } = l;
  const { rowStart: rs, xs } = runs;
  // each run as found: its first pixel and its length (bit 31: shadow somewhere in it)
  const found: number[] = [];
  const rowStart = new Int32Array(height + 1);
  for (let y = 0; y < height; y++) {
    if ((y & 31) === 31) {
      yield;
      if (!wanted()) return null; // the level left the cache meanwhile
    }
    rowStart[y] = found.length / 2;
    for (let r = rs[y]!; r < rs[y + 1]!; r++) {
      const end = y * width + xs[2 * r + 1]!;
      for (let i = y * width + xs[2 * r]!; i < end; i++) {
        if (paint[i] !== 255) continue;
        const first = i;
        let shaded = 0;
        while (i < end && paint[i] === 255) {
          if (shadow !== null && shadow[i] !== 0) shaded = 1;
          i++;
        }
        found.push(first, ((i - first) | (shaded << 31)) >>> 0);
      }
    }
    if (found.length / 2 > width * height * FULL_RUNS_MAX_SHARE) return null;
  }
  const count = found.length / 2;
  rowStart[height] = count;
  const align = (x: number) => Math.ceil(x / 64) * 64;
  const at = align(arena.memory.buffer.byteLength);
  const oRows = align(at + count * 8);
  const pages = Math.ceil((oRows + (height + 1) * 4 - arena.memory.buffer.byteLength) / WASM_PAGE);
  if (pages > 0) arena.memory.grow(pages);
  const buf = arena.memory.buffer;
  new Uint32Array(buf, at, count * 2).set(found);
  const rows = new Int32Array(buf, oRows, height + 1);
  rows.set(rowStart);
  return { count, at, rowStart: rows };
}

/**
 * `src` into `dst` from offset 0, 256 KB at a time: a fresh arena's pages are touched (and faulted
 * in) for the first time by these copies, about as slow as the pixel loops, so they are sliced too.
 */
function* copySliced(dst: Uint8Array | Uint16Array, src: Uint8Array | Uint16Array): Sliced<void> {
  const step = (256 * 1024) / dst.BYTES_PER_ELEMENT;
  for (let i = 0; i < src.length; i += step) {
    dst.set(src.subarray(i, Math.min(src.length, i + step)), i);
    yield;
  }
}

/** The base darkened by the shadow through linear light, exactly as the kernels would per pixel. */
function* fillShadowedBase(out: Uint8Array, base: Uint8Array, shadow: Uint8Array): Sliced<void> {
  yield* copySliced(out, base);
  for (let i = 0; i < shadow.length; i += SLICE_PIXELS) {
    shadeRange(out, base, shadow, i, Math.min(shadow.length, i + SLICE_PIXELS));
    yield;
  }
}

/**
 * Pixels a sliced loop does between two turns. The pixel loops themselves are plain functions
 * (`shadeRange`, `lookUpRange`): with a `yield` inside a hot loop, V8's code for the loop ran 4–5 ×
 * slower (docs/performance-renderer.md, "Ninth pass").
 */
const SLICE_PIXELS = 65536;

function shadeRange(out: Uint8Array, base: Uint8Array, shadow: Uint8Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const s8 = shadow[i]!;
    if (s8 === 0) continue;
    const sh = s8 << 8;
    const o = i * 3;
    out[o] = SHADED[sh | base[o]!]!;
    out[o + 1] = SHADED[sh | base[o + 1]!]!;
    out[o + 2] = SHADED[sh | base[o + 2]!]!;
  }
}

/** out[i] = table[src[i]] for i in [from, to). */
function lookUpRange(out: Uint16Array, src: Uint8Array, table: Uint16Array, from: number, to: number): void {
  for (let i = from; i < to; i++) out[i] = table[src[i]!]!;
}

/**
 * The Layers of these planes: with a shadow, the shadowed base is filled (the arena's plane from
 * allocPlanes; outside an arena a new one) and the runs cover paint only, unless `opts.shadowedBase`
 * is false, where there is none and the runs cover paint and shadow, as the kernels then need.
 */
export function makeLayers(key: string, l: Omit<Layers, 'bytes' | 'key' | 'runs' | 'level'>, opts: { shadowedBase?: boolean } = {}): Layers {
  return runNow(withLevelTables(runNow(layersOf(key, l, opts))));
}

/**
 * `l` with its level tables in its arena, where it has an output picture: its edge list
 * (LevelEdges) and fully painted runs (FullRuns), then its palette (LevelPalette) where that pays. A new Layers object whose `bytes`
 * count them (the arena grew by them, also where the palette turned out not to pay, or `wanted` said
 * stop between slices); `l` itself where none was tried. The arena's `edges` and `fullRuns`, then
 * `palette`, are set as they are done (shared by every Layers object of the arena).
 */
export function* withLevelTables(l: Layers, wanted: () => boolean = () => true): Sliced<Layers> {
  const arena = l.arena;
  if (!arena?.output || arena.tablesTried || !l.runs) return l;
  arena.tablesTried = true;
  const edges = yield* levelEdges(arena, l, l.runs, wanted);
  // the runs only with the edge list: with both, the kernel no longer walks the paint plane
  const fullRuns = edges !== null && wanted() ? yield* levelFullRuns(arena, l, l.runs, wanted) : null;
  arena.edges = edges;
  arena.fullRuns = fullRuns;
  if (wanted()) arena.palette = yield* levelPalette(arena, l.width, l.height, l.paint, l.diffuse, l.specular, l.runs, wanted);
  const bytes = arena.memory.buffer.byteLength + l.runs.rowStart.byteLength + l.runs.xs.byteLength;
  return bytes === l.bytes ? l : { ...l, bytes };
}

function* layersOf(key: string, l: Omit<Layers, 'bytes' | 'key' | 'runs' | 'level'>, opts: { shadowedBase?: boolean }): Sliced<Layers> {
  let shadowedBase: Uint8Array | undefined;
  if (l.shadow !== null && opts.shadowedBase !== false) {
    shadowedBase = l.shadowedBase;
    if (shadowedBase === undefined) {
      // in an arena the kernel reads it in place, so it must be the arena's (allocPlanes)
      if (l.arena) throw new Error(`${key}: layers in an arena need their shadowedBase plane from allocPlanes`);
      shadowedBase = sharedU8(l.base.length);
    }
    yield* fillShadowedBase(shadowedBase, l.base, l.shadow);
  }
  const runs = yield* activeRuns(l.width, l.height, l.paint, shadowedBase ? null : l.shadow);
  // an arena is held whole (header and scratch rows included) for as long as any of its planes is
  const planes = l.arena ? l.arena.memory.buffer.byteLength : layerBytes(l);
  const { shadowedBase: _given, ...rest } = l;
  return { ...rest, ...(shadowedBase ? { shadowedBase } : {}), runs, key, bytes: planes + runs.rowStart.byteLength + runs.xs.byteLength };
}

/**
 * The Layers of planes filled from elsewhere (a level file: level-files.ts), in an arena from
 * allocPlanes: the shadowed base and runs made here, paced, as for a level decoded or reduced here.
 */
export function layersOfPlanes(key: string, p: PlaneSet & { arena: LayerArena; shadowedBase?: Uint8Array; width: number; height: number }, level: LevelGeometry | undefined, opts: { shadowedBase?: boolean }): Promise<Layers> {
  return runPaced(layersOf(key, p, opts)).then((made) => (level ? { ...made, level } : made));
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
  opts: { shadowedBase?: boolean } = {},
): Promise<Layers> {
  const rgb = (f: string) => sharp(f).removeAlpha().toColourspace('srgb').raw().toBuffer();
  const grey8 = (f: string) => sharp(f).toColourspace('b-w').raw().toBuffer();
  // 16-bit light layers as decoded; 8-bit ones hold linear light through the sRGB curve (docs/asset-format.md)
  const light = async (f: string, depth: 8 | 16): Promise<{ depth: 8 | 16; buf: Buffer }> =>
    depth === 16 ? { depth, buf: await sharp(f).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer() } : { depth, buf: await grey8(f) };
  const [b, p, d, s, sh, cv] = await Promise.all([
    rgb(files.base),
    grey8(files.paint),
    light(files.diffuse, lightDepth.diffuse),
    light(files.specular, lightDepth.specular),
    files.shadow ? grey8(files.shadow) : Promise.resolve(null),
    files.coverage ? grey8(files.coverage) : Promise.resolve(null),
  ]);
  const px = width * height;
  const lightPx = (l: { depth: 8 | 16; buf: Buffer }) => (l.depth === 16 ? l.buf.length / 2 : l.buf.length);
  if (
    b.length !== px * 3 ||
    p.length !== px ||
    lightPx(d) !== px ||
    lightPx(s) !== px ||
    (sh && sh.length !== px) ||
    (cv && cv.length !== px)
  ) {
    throw new Error(`${key}: decoded layer sizes do not match ${width}x${height}`);
  }
  const planes = allocPlanes(key, width, height, { shadow: sh !== null, coverage: cv !== null, shadowedBase: opts.shadowedBase, output: opts.shadowedBase !== false });
  const { base, paint, diffuse, specular, shadow, shadowedBase, coverage, arena } = planes;
  // paced (paced.ts): the renderer decodes on its main thread, which serves gRPC meanwhile
  return runPaced(
    (function* (): Sliced<Layers> {
      yield* copySliced(base, b);
      yield* copySliced(paint, p);
      if (shadow && sh) yield* copySliced(shadow, sh);
      if (coverage && cv) yield* copySliced(coverage, cv);
      const lut = new Uint16Array(256);
      for (let i = 0; i < 256; i++) lut[i] = Math.round(LIGHT8_TO_LINEAR[i]! * 65535);
      for (const [l, out] of [[d, diffuse], [s, specular]] as const) {
        if (l.depth === 16) yield* copySliced(out, new Uint16Array(l.buf.buffer, l.buf.byteOffset, px));
        else
          for (let i = 0; i < px; i += SLICE_PIXELS) {
            lookUpRange(out, l.buf, lut, i, Math.min(px, i + SLICE_PIXELS));
            yield;
          }
      }
      return yield* layersOf(key, { width, height, base, paint, diffuse, specular, shadow, shadowedBase, coverage, arena }, opts);
    })(),
  );
}

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
export interface LevelGeometry {
  footprint: number;
  fullWidth: number;
  fullHeight: number;
}

export function levelGeometry(l: Layers): LevelGeometry {
  return l.level ?? { footprint: 1, fullWidth: l.width, fullHeight: l.height };
}

/** A level's size: the full size over the footprint, rounded like the output height (asset-store `outputHeight`), at least 1. */
export function levelSize(fullWidth: number, fullHeight: number, footprint: number): { width: number; height: number } {
  return { width: Math.max(1, Math.round(fullWidth / footprint)), height: Math.max(1, Math.round(fullHeight / footprint)) };
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
export function reduceLayers(key: string, src: Layers, ratio: 2 | 1.5): Layers {
  return runNow(reducedLayers(key, src, ratio));
}

/** reduceLayers, paced (paced.ts): what the asset store runs on the renderer's main thread. */
export function reduceLayersPaced(key: string, src: Layers, ratio: 2 | 1.5, sliceMs?: number): Promise<Layers> {
  return runPaced(reducedLayers(key, src, ratio), sliceMs);
}

function* reducedLayers(key: string, src: Layers, ratio: 2 | 1.5): Sliced<Layers> {
  const g = levelGeometry(src);
  const footprint = g.footprint * ratio;
  const { width: W, height: H } = levelSize(g.fullWidth, g.fullHeight, footprint);
  const tx = axisTaps(W, footprint, src.width, g.footprint, g.fullWidth);
  const ty = axisTaps(H, footprint, src.height, g.footprint, g.fullHeight);
  const w = src.width;
  const N = W * H;
  // a level has a shadowed base when the level it is reduced from has one
  const withShadowedBase = src.shadowedBase !== undefined;
  const { base, paint, diffuse, specular, shadow, shadowedBase, coverage, arena } = allocPlanes(key, W, H, {
    shadow: src.shadow !== null,
    coverage: src.coverage !== null,
    shadowedBase: withShadowedBase,
    // and an output picture when that one has one
    output: Boolean(src.arena?.output),
  });
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
  const made = yield* layersOf(key, { width: W, height: H, base, paint, diffuse, specular, shadow, shadowedBase, coverage, arena }, { shadowedBase: withShadowedBase });
  return { ...made, level };
}

/** The next level down: each pixel the exact average of a 2×2 block (reduceLayers), paced. */
export function halveLayers(key: string, src: Layers): Promise<Layers> {
  return reduceLayersPaced(key, src, 2);
}

/** The 2/3-size level: each pixel the exact area average of a 1.5×1.5 block (reduceLayers), paced. */
export function twoThirdsLayers(key: string, src: Layers): Promise<Layers> {
  return reduceLayersPaced(key, src, 1.5);
}
