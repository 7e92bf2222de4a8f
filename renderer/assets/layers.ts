import type { Layers, ActiveRuns, LevelGeometry } from './layer-types.ts';
export type { PlaneSet, Layers, ActiveRuns } from './layer-types.ts';
import type { LevelExtras, LevelPlanes } from './level-extras.ts';
import { runNow, runPaced, type Sliced } from './paced.ts';

// What a view's layers at one size are (Layers), and how planes become them: the active runs made,
// and what the backend's LevelExtras add (level-extras.ts: the cpu backend's shadowed base), paced.
// Decoding a set's files is decode-layers.ts; the smaller levels reduce-layers.ts.

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

/**
 * Pixels a sliced loop does between two turns. The pixel loops themselves are plain functions
 * (`shadeRange`, `lookUpRange`): with a `yield` inside a hot loop, V8's code for the loop ran 4–5 ×
 * slower (docs/performance-renderer.md, "Ninth pass").
 */
export const SLICE_PIXELS = 65536;

/** out[i] = table[src[i]] for i in [from, to). */
export function lookUpRange(out: Uint16Array, src: Uint8Array, table: Uint16Array, from: number, to: number): void {
  for (let i = from; i < to; i++) out[i] = table[src[i]!]!;
}

/**
 * The Layers of these planes, at once, with what `extras` add (the cpu backend's: with a shadow, the
 * shadowed base, and the runs then cover paint only; its level tables), as the asset store makes a
 * level and then adds to it once cached (tests, tools).
 */
export function makeLayers(key: string, l: Omit<Layers, 'bytes' | 'key' | 'runs' | 'level'>, extras: LevelExtras): Layers {
  const made = runNow(layersOf(key, l, extras));
  const after = extras.afterLevel?.(made, () => true) ?? null;
  return after ? runNow(after) : made;
}

/**
 * The Layers of these planes: the shadowed base made where `extras` make one (its runs then cover
 * paint only; else paint and shadow, as the kernels then need), and the active runs.
 */
export function* layersOf(key: string, l: LevelPlanes & { width: number; height: number }, extras: LevelExtras): Sliced<Layers> {
  const shadowedBase = l.shadow !== null && extras.shadowedBase ? yield* extras.shadowedBase(key, l) : undefined;
  const runs = yield* activeRuns(l.width, l.height, l.paint, shadowedBase ? null : l.shadow);
  // an arena is held whole (header and scratch rows included) for as long as any of its planes is
  const planes = l.arena ? l.arena.memory.buffer.byteLength : layerBytes(l);
  const { shadowedBase: _given, ...rest } = l;
  return { ...rest, ...(shadowedBase ? { shadowedBase } : {}), runs, key, bytes: planes + runs.rowStart.byteLength + runs.xs.byteLength };
}

/**
 * The Layers of planes filled from elsewhere (a level file: level-files.ts), allocated by `extras`:
 * what `extras` add and the runs made here, paced, as for a level decoded or reduced here.
 */
export function layersOfPlanes(key: string, p: LevelPlanes & { width: number; height: number }, level: LevelGeometry | undefined, extras: LevelExtras): Promise<Layers> {
  return runPaced(layersOf(key, p, extras)).then((made) => (level ? { ...made, level } : made));
}
