import type { SharedWasmMemory, LayerArena, PlaneSet } from '../../assets/layer-types.ts';
export type { SharedWasmMemory, LayerArena } from '../../assets/layer-types.ts';

// The shared WebAssembly memory a level's planes, output picture and tables live in (the cpu
// backend's wasm kernel reads them in place), and the room it reserves for the level tables.

/** The project's lib (ES2023, no DOM) has no WebAssembly types: the little used here. */
declare const WebAssembly: { Memory: new (d: { initial: number; maximum: number; shared: true }) => SharedWasmMemory };

/**
 * Bytes at the start of every arena reserved for the cpu kernel's own use (its tables: about 201 KiB;
 * wasm/kernel.ts `HEADER`, which the kernel's loader checks against this).
 */
export const ARENA_HEADER_BYTES = 256 * 1024;
/** Scratch rows after the header, one per thread compositing from an arena (the main thread's is slot 0): room for 64 workers, a 64-core node, for about 0.6 MB an arena at 2400 px. */
export const ARENA_SLOTS = 65;
export const WASM_PAGE = 65536;

/** Bytes of a block of four LevelEdges entries (wasm/kernel.ts EDGE_BLOCK). */
export const EDGE_BLOCK_BYTES = 128;
/** A level gets an edge list when its partly painted pixels are at most this share of its pixels (what the arena reserves room for). */
export const EDGES_MAX_SHARE = 0.25;

/** Bytes of an edge list of `entries` partly painted pixels over `height` rows at most. */
export function edgesBytes(entries: number, height: number): number {
  return (Math.ceil(entries / 4) + height) * EDGE_BLOCK_BYTES + (height + 1) * 4 + 2 * 64;
}

/** A level gets a palette when its distinct lightings are at most this share of its fully painted pixels (LevelPalette). */
export const PALETTE_MAX_SHARE = 0.5;
/** Composites of one level that can use its palette at once (more at once compute their pixels): the renderer's usual concurrency. */
export const PALETTE_COLOUR_SLOTS = 4;

/** Bytes of a palette of `entries` entries over `painted` fully painted pixels and `height` rows (what the arena reserves room for). */
export function paletteBytes(entries: number, painted: number, height: number): number {
  return painted * 4 + (height + 1) * 4 + entries * (2 + 2) + PALETTE_COLOUR_SLOTS * (entries * 3 + 4 + 64) + 4 * 64;
}

let nextArenaId = 1;

export interface Planes extends PlaneSet {
  arena: LayerArena;
  /** Present when `shadow` is: Layers.shadowedBase, filled by level-extras.ts `shadowedBase`. */
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
  has: { shadow: boolean; coverage: boolean; shadowedBase?: boolean; output?: boolean; tables?: boolean },
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
  // with tables (by default with the output picture: the cpu backend's) the arena may grow by them
  // (withLevelTables: reserved address space only), in three steps (edge list, the palette's
  // index, its entries), each rounded up to pages
  const tables = edgesBytes(Math.floor(n * EDGES_MAX_SHARE), height) + paletteBytes(Math.ceil((n * PALETTE_MAX_SHARE) / 4) * 4, n, height);
  const room = (has.tables ?? withOutput) ? Math.ceil(tables / WASM_PAGE) + 4 : 0;
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
    arena: { memory, id: nextArenaId++, key, scratch: ARENA_HEADER_BYTES, slotBytes, output: oOutput >= 0 ? new Uint8Array(buf, oOutput, n * 3) : null, palette: null, edges: null, tablesTried: false },
  };
}

export function sharedU8(n: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(n));
}

export function sharedU16(n: number): Uint16Array {
  return new Uint16Array(new SharedArrayBuffer(n * 2));
}

