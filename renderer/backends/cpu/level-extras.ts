import type { LevelExtras, LevelPlanes } from '../../assets/level-extras.ts';
import { copySliced, SLICE_PIXELS } from '../../assets/layers.ts';
import type { Sliced } from '../../assets/paced.ts';
import { SHADED } from '../../color/srgb8.ts';
import { allocPlanes, sharedU8 } from './arena.ts';
import { withLevelTables, type TableChoice } from './level-tables.ts';
import type { Layers } from '../../assets/layer-types.ts';
import type { CpuMechanisms } from './mechanisms.ts';

// What the cpu backend adds to every level the asset store makes (the store's LevelExtras,
// assets/level-extras.ts): the planes in an arena (arena.ts) with an output picture, the shadowed
// base, and the level tables (level-tables.ts) built once the level is cached.

/** The base darkened by the shadow through linear light, exactly as the kernels would per pixel. */
function* fillShadowedBase(out: Uint8Array, base: Uint8Array, shadow: Uint8Array): Sliced<void> {
  yield* copySliced(out, base);
  for (let i = 0; i < shadow.length; i += SLICE_PIXELS) {
    shadeRange(out, base, shadow, i, Math.min(shadow.length, i + SLICE_PIXELS));
    yield;
  }
}

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

/**
 * The base with the floor shadow applied (Layers.shadowedBase), so the kernel copies it and never
 * visits the shadow-only pixels: into the arena's plane from allocPlanes; outside an arena (layers
 * made by hand: tests) into a new buffer.
 */
function* shadowedBase(key: string, l: LevelPlanes): Sliced<Uint8Array> {
  let out = l.shadowedBase;
  if (out === undefined) {
    // in an arena the kernel reads it in place, so it must be the arena's (allocPlanes)
    if (l.arena) throw new Error(`${key}: layers in an arena need their shadowedBase plane from allocPlanes`);
    out = sharedU8(l.base.length);
  }
  yield* fillShadowedBase(out, l.base, l.shadow!);
  return out;
}

/**
 * The cpu backend's level extras: planes in an arena, with an output picture (`output: false`:
 * none), the shadowed base (`shadowedBase: false`: none, as the tests compare), and the level tables
 * (`tables`: which; default all, none with `output: false`) built after the level is cached.
 */
export function cpuLevelExtras(opts: { shadowedBase?: boolean; output?: boolean; tables?: TableChoice } = {}): LevelExtras {
  const shaded = opts.shadowedBase !== false;
  const output = opts.output !== false;
  const tables = opts.tables ?? (output ? { edges: true, palette: true } : { edges: false, palette: false });
  const anyTable = tables.edges || tables.palette;
  return {
    allocatePlanes: (key, width, height, has) => allocPlanes(key, width, height, { ...has, shadowedBase: shaded, output, tables: anyTable }),
    ...(shaded ? { shadowedBase } : {}),
    // built once per arena (the arena grows by them)
    ...(anyTable ? { afterLevel: (l: Layers, stillCached: () => boolean) => (!l.arena || l.arena.tablesTried ? null : withLevelTables(l, stillCached, tables)) } : {}),
  };
}

/** What the cpu backend hands the asset store (CpuCompositor.levelExtras) with every mechanism on. */
export const CPU_LEVEL_EXTRAS = cpuLevelExtras();

/** The level extras of a cpu backend with these mechanisms (CpuMechanisms): CPU_LEVEL_EXTRAS with all on. */
export function levelExtrasFor(m: CpuMechanisms): LevelExtras {
  if (m.shadowedBase && m.ownOutput && m.edges && m.palette) return CPU_LEVEL_EXTRAS;
  return cpuLevelExtras({ shadowedBase: m.shadowedBase, output: m.ownOutput, tables: { edges: m.edges, palette: m.palette } });
}

/**
 * Planes in an arena and nothing else: what the gl backend's levels have always been made with
 * (GlCompositor.levelExtras), so the layer cache counts them as before (the arena whole: its kernel
 * header and scratch rows too, which gl never uses). Plain SharedArrayBuffers would do for gl, with
 * 0.4–0.9 MB less a level; that is a change of what the cache holds, not made here.
 */
export const ARENA_ONLY_LEVEL_EXTRAS = cpuLevelExtras({ shadowedBase: false, output: false });
