import type { LevelEdges, LevelPalette, ActiveRuns, Layers, LayerArena } from '../../assets/layer-types.ts';
export type { LevelEdges, LevelPalette } from '../../assets/layer-types.ts';
import { SRGB8_TO_LINEAR } from '../../../shared/color/srgb.ts';
import { EDGE_BLOCK_BYTES, EDGES_MAX_SHARE, PALETTE_COLOUR_SLOTS, PALETTE_MAX_SHARE, WASM_PAGE, edgesBytes, paletteBytes } from './arena.ts';
import type { Sliced } from '../../assets/paced.ts';

// A level's tables (edge list, palette), built after the level, paced, into its
// arena: what lets the cpu kernel skip walking the planes (docs/performance-renderer.md). They hold the
// formula's inputs decoded as the kernels read them, not the formula: that is written once, in
// docs/asset-format.md ("Compositing"), and evaluated by the kernels.

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

/** Which of a level's tables to build (CpuMechanisms). */
export interface TableChoice {
  edges: boolean;
  palette: boolean;
}
const ALL_TABLES: TableChoice = { edges: true, palette: true };

/**
 * `l` with its level tables (`which`) in its arena: its edge list (LevelEdges), then its palette
 * (LevelPalette) where that pays. A new Layers object whose `bytes` count them (the arena grew by
 * them, also where the palette turned out not to pay, or `wanted` said stop between slices); `l`
 * itself where none was tried. The arena's `edges`, then `palette`, are set as they are done (shared
 * by every Layers object of the arena).
 */
export function* withLevelTables(l: Layers, wanted: () => boolean = () => true, which: TableChoice = ALL_TABLES): Sliced<Layers> {
  const arena = l.arena;
  if (!arena || arena.tablesTried || !l.runs) return l;
  arena.tablesTried = true;
  arena.edges = which.edges ? yield* levelEdges(arena, l, l.runs, wanted) : null;
  if (which.palette && wanted()) arena.palette = yield* levelPalette(arena, l.width, l.height, l.paint, l.diffuse, l.specular, l.runs, wanted);
  const bytes = arena.memory.buffer.byteLength + l.runs.rowStart.byteLength + l.runs.xs.byteLength;
  return bytes === l.bytes ? l : { ...l, bytes };
}
