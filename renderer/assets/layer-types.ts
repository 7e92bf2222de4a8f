// The types of a view's layers at one size and of the tables and memory the cpu backend adds to them,
// in one module of types only, so the modules that make them (layers.ts, reduce-layers.ts, and the cpu
// backend's backends/cpu/arena.ts, level-tables.ts, level-extras.ts) import each other in one direction.

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
   * cpu backend's LevelExtras, backends/cpu/level-extras.ts; the gl backend does not use it), so the kernel copies it and
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

/**
 * Per row, the runs [x0, x1) of pixels with paint (or, with `shadow`, paint or shadow), in shared memory: row y's runs are
 * `xs[2r], xs[2r + 1]` for r in [rowStart[y], rowStart[y + 1]). Gaps shorter than RUN_GAP are
 * bridged (a run's start costs more than a few idle pixels).
 */
export interface ActiveRuns {
  rowStart: Int32Array;
  xs: Int32Array;
}

export interface SharedWasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}

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

export interface LevelGeometry {
  footprint: number;
  fullWidth: number;
  fullHeight: number;
}
