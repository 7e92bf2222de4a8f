// The playground's spin: the /v1 spin path, the frame arithmetic of the viewer, and the in-order
// preloading of the frames. No DOM here (the loader is passed in), so test/dashboard/spin-viewer.test.ts
// runs it in Node.
import type { Vehicle, Warning } from '../types.ts';
import type { FramingChoice } from './framing.ts';
import { framingQuery } from './framing.ts';

// shared/spin.ts owns these; it imports the gRPC error table, so the bundle keeps its own copy and the
// unit test checks that the two agree
export const SPIN_FRAME_COUNTS = [8, 12, 24, 36, 72] as const;
export const SPIN_FRAMES_DEFAULT = 36;
export const SPIN_WIDTH_MIN = 200;
export const SPIN_WIDTH_MAX = 1600;

export interface SpinRequest extends FramingChoice {
  vehicleId: string;
  frames: number;
  color: string;
  shadow: boolean;
  plate: string;
  format: string;
  width: number;
  background: 'studio' | 'transparent';
}

export interface SpinFrame {
  index: number;
  yaw_degrees: number;
  image_url: string;
  layout: { width: number; height: number } | null;
}

export interface SpinAnswer {
  vehicle: Vehicle;
  options: Record<string, unknown>;
  frames: SpinFrame[];
  warnings: Warning[];
}

/** `GET /v1/vehicles/{id}/spin?…`: the same option names and rules as the image call's query. */
export function spinPath(r: SpinRequest): string {
  const q = new URLSearchParams();
  q.set('frames', String(r.frames));
  q.set('color', r.color);
  q.set('shadow', String(r.shadow));
  if (r.plate.trim()) q.set('plate', r.plate.trim());
  q.set('format', r.format);
  // the API clamps it too; the playground asks what it will get, so the curl line says it
  q.set('width', String(Math.min(SPIN_WIDTH_MAX, Math.max(SPIN_WIDTH_MIN, r.width))));
  if (r.background !== 'studio') q.set('background', r.background);
  framingQuery(r, q);
  return `/v1/vehicles/${encodeURIComponent(r.vehicleId)}/spin?${q.toString()}`;
}

/** The frame `delta` steps from `index`, round the turntable. */
export function stepFrame(index: number, delta: number, count: number): number {
  return (((index + delta) % count) + count) % count;
}

/**
 * The frame a drag has reached: a drag across the viewer's whole width is one turn, and dragging
 * right goes towards higher yaw (the camera moves to the vehicle's left side, as if the hand pushed
 * the car's near side away).
 */
export function frameAfterDrag(startIndex: number, dx: number, viewerWidth: number, count: number): number {
  if (viewerWidth <= 0) return startIndex;
  return stepFrame(startIndex, Math.round((dx / viewerWidth) * count), count);
}

/** `baking`: the renderer answered that the frame is being shot, and the viewer waits as it asked. */
export type FrameState = 'waiting' | 'baking' | 'loaded' | 'failed';

/**
 * A frame to ask for again later: the download answered 503 with `Retry-After` (the renderer is still
 * shooting it: a cold frame on a renderer without a GPU takes seconds, longer than a download waits),
 * or 429 with it (the organisation's cold downloads are at their limit).
 */
export class FramePending extends Error {
  constructor(readonly retryAfterS: number) {
    super(`frame pending, retry after ${retryAfterS} s`);
  }
}

export interface PreloadOptions {
  /** Downloads at a time; the lowest indices start first, so the first frames come first. */
  concurrency: number;
  /** Wait before the one retry of a frame that failed otherwise than pending. */
  retryDelayMs: number;
  /**
   * How long a frame may go on being pending (each wait as long as its Retry-After, 1 to 60 s): the
   * renderer shoots one frame at a time, so the last of 72 cold frames may come minutes after the first.
   */
  pendingBudgetMs: number;
  /** Resolves once the frame is decoded; rejects with FramePending, or any error when it could not be loaded. */
  load: (index: number) => Promise<void>;
  onSettled: (index: number, state: Exclude<FrameState, 'waiting'>) => void;
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });

/**
 * Loads the frames `indices` in their order with at most `concurrency` at once. A pending frame is
 * reported `baking` and asked again after its Retry-After, for at most `pendingBudgetMs`; a frame that
 * fails otherwise is tried once more after `retryDelayMs`; either way it is then reported failed.
 * Nothing is reported once `signal` is aborted.
 */
export async function preloadFrames(indices: readonly number[], o: PreloadOptions): Promise<void> {
  const sleep = o.sleep ?? abortableSleep;
  const now = o.now ?? Date.now;
  let next = 0;
  const one = async (i: number): Promise<'loaded' | 'failed' | null> => {
    const until = now() + o.pendingBudgetMs;
    let retried = false;
    for (;;) {
      try {
        await o.load(i);
        return 'loaded';
      } catch (e) {
        if (o.signal.aborted) return null;
        let waitMs: number;
        if (e instanceof FramePending) {
          waitMs = Math.min(60, Math.max(1, e.retryAfterS)) * 1000;
          if (now() + waitMs > until) return 'failed';
          o.onSettled(i, 'baking');
        } else {
          if (retried) return 'failed';
          retried = true;
          waitMs = o.retryDelayMs;
        }
        await sleep(waitMs, o.signal);
        if (o.signal.aborted) return null;
      }
    }
  };
  const worker = async () => {
    while (!o.signal.aborted && next < indices.length) {
      const i = indices[next++]!;
      const state = await one(i);
      if (state === null || o.signal.aborted) return;
      o.onSettled(i, state);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, indices.length) }, worker));
}
