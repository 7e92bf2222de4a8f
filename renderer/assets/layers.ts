import type { PlaneSet, Layers, ActiveRuns, LayerArena, LevelGeometry } from './layer-types.ts';
export type { PlaneSet, Layers, ActiveRuns } from './layer-types.ts';
import { SHADED } from '../color/srgb8.ts';
import { sharedU8 } from './arena.ts';
import { withLevelTables } from './level-tables.ts';
import { runNow, runPaced, type Sliced } from './paced.ts';

// What a view's layers at one size are (Layers), and how planes become them: the shadowed base and
// the active runs made, paced. The arena they live in is arena.ts; their level tables level-tables.ts;
// decoding a set's files decode-layers.ts; the smaller levels reduce-layers.ts.

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

/**
 * `src` into `dst` from offset 0, 256 KB at a time: a fresh arena's pages are touched (and faulted
 * in) for the first time by these copies, about as slow as the pixel loops, so they are sliced too.
 */
export function* copySliced(dst: Uint8Array | Uint16Array, src: Uint8Array | Uint16Array): Sliced<void> {
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
export const SLICE_PIXELS = 65536;

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
export function lookUpRange(out: Uint16Array, src: Uint8Array, table: Uint16Array, from: number, to: number): void {
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

export function* layersOf(key: string, l: Omit<Layers, 'bytes' | 'key' | 'runs' | 'level'>, opts: { shadowedBase?: boolean }): Sliced<Layers> {
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

