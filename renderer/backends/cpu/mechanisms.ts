// The cpu backend's optional mechanisms: each one trades code (and some memory) for time, and the
// renders' bytes are the same with or without it. All are on in the service; the benchmark
// (`npm run bench:cpu-mechanisms`) turns each off in turn, side by side, so that each keeps its
// place only by its measured gain (docs/performance-renderer.md, "What each cpu mechanism earns").

export interface CpuMechanisms {
  /** Level palettes: a level's distinct lightings composited once per render (level-tables.ts). */
  palette: boolean;
  /** Level edge lists: partly painted pixels' inputs gathered once per level (level-tables.ts). */
  edges: boolean;
  /** The base with the floor shadow applied once per level (level-extras.ts), copied as the picture's start. */
  shadowedBase: boolean;
  /** Each level's own output picture in its arena, written in place by the wasm kernel (arena.ts). */
  ownOutput: boolean;
  /** Small pictures, and any opaque picture of a render that is alone, composited on the calling thread. */
  inline: boolean;
  /** The plate's pixels precomputed per plate and level (plate-overlay.ts) instead of sampled per render. */
  plateOverlay: boolean;
}

export const CPU_MECHANISMS: readonly (keyof CpuMechanisms)[] = ['palette', 'edges', 'shadowedBase', 'ownOutput', 'inline', 'plateOverlay'];

export const ALL_CPU_MECHANISMS: Readonly<CpuMechanisms> = Object.freeze(Object.fromEntries(CPU_MECHANISMS.map((m) => [m, true])) as unknown as CpuMechanisms);
