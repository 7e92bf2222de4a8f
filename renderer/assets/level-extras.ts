import type { Layers, LayerArena, PlaneSet } from './layer-types.ts';
import type { Sliced } from './paced.ts';

// What a backend adds to the levels the asset store makes, behind one small interface the store owns:
// the composition root (renderer/server.ts) hands the store the chosen backend's (Compositor.levelExtras),
// and the store makes and reduces levels, and reads level files, with it. The cpu backend's
// (backends/cpu/level-extras.ts) puts the planes in an arena with an output picture, adds the shadowed
// base and builds the level tables; the gl backend's levels get their planes in an arena and nothing else.

/** A level's zeroed planes, as its LevelExtras allocates them (allocatePlanes). */
export interface LevelPlanes extends PlaneSet {
  /** The one shared memory the planes live in, where the extras put them in one (Layers.arena). */
  arena?: LayerArena;
  /** A plane reserved for the shadowed base (with `shadow`), where the extras want it in place. */
  shadowedBase?: Uint8Array;
}

export interface LevelExtras {
  /** Zeroed planes of a width × height level (`shadow`, `coverage`: whether it has those planes). */
  allocatePlanes(key: string, width: number, height: number, has: { shadow: boolean; coverage: boolean }): LevelPlanes;
  /**
   * The level's shadowed base (Layers.shadowedBase), filled from its planes, paced; absent: levels
   * have none, and their runs cover the shadow as well as the paint (layers.ts `layersOf`).
   */
  shadowedBase?(key: string, planes: LevelPlanes): Sliced<Uint8Array>;
  /**
   * What a level gains once it is in the cache, built in the background, paced (`stillCached` false:
   * stop between slices): the level again, with what it gained counted in its `bytes`, or the same
   * object where it gained nothing. Absent, or null for this level: nothing to build.
   */
  afterLevel?(l: Layers, stillCached: () => boolean): Sliced<Layers> | null;
}
