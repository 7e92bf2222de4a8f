import { ServiceError } from './errors.ts';
import { singleParam } from './query-param.ts';
import { parseWidth } from './render-options.ts';
import { SPIN_YAW_STEP } from './shot-id.ts';

/**
 * Spins (docs/api.md, "Spins"): frames of a turntable around a vehicle shot from its set's 3D source.
 * One owner of what a spin is for every reader and writer: the frame counts and widths the API takes,
 * the yaws of a spin, the box `fit` scales its frames by; the frame ids themselves are shot-id.ts.
 */

/** Frame counts a spin may have; every one divides 360° into steps that are multiples of SPIN_YAW_STEP. */
export const SPIN_FRAME_COUNTS = [8, 12, 24, 36, 72] as const;
export type SpinFrameCount = (typeof SPIN_FRAME_COUNTS)[number];
export const SPIN_FRAMES_DEFAULT: SpinFrameCount = 36;
/** The API's width rule for spin frames: clamped into this range, as the image call clamps its own. */
export const SPIN_WIDTH_MIN = 200;
export const SPIN_WIDTH_MAX = 1600;
export const SPIN_WIDTH_DEFAULT = 800;
/** Every yaw a spin can show (0, 5, … 355), the frames DescribeSet gives geometry for. */
export const ALL_SPIN_YAWS: readonly number[] = Array.from({ length: 360 / SPIN_YAW_STEP }, (_, i) => i * SPIN_YAW_STEP);

/** The yaws of a spin of `frames` frames, evenly spaced from 0, in order. */
export function spinYaws(frames: SpinFrameCount): number[] {
  return Array.from({ length: frames }, (_, i) => (i * 360) / frames);
}

export function isSpinFrameCount(n: number): n is SpinFrameCount {
  return (SPIN_FRAME_COUNTS as readonly number[]).includes(n);
}

/**
 * The spin geometry DescribeSet gives is in pixels of a frame this size (16:9); a frame shot at another
 * width scales it by width / SPIN_GEOMETRY_WIDTH.
 */
export const SPIN_GEOMETRY_WIDTH = 1600;
export const SPIN_GEOMETRY_HEIGHT = 900;

/**
 * The box `fit` framing scales every frame of a spin by (shared/framing.ts frameGeometry's `sweep`):
 * the union of the frames' vehicle boxes, the space the vehicle sweeps as it turns. One scale for all
 * frames keeps the vehicle's size as it turns (each frame's own box would zoom it in and out: a scale
 * of 0.52 side on against 0.83 from the front for the coupé). Boxes in one frame size.
 */
export function spinFitBox(boxes: Iterable<{ x: number; y: number; width: number; height: number }>): { x: number; y: number; width: number; height: number } | null {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

export interface SpinOptions {
  frames: SpinFrameCount;
  /** Clamped into SPIN_WIDTH_MIN..SPIN_WIDTH_MAX. */
  width: number;
}

/**
 * `frames` and `width` of the spin call. A frame count outside the list is refused (it changes what
 * the answer is); a width is clamped like the image call's, after the same integer check.
 */
export function parseSpinOptions(query: Record<string, unknown>): SpinOptions {
  const framesRaw = singleParam('frames', query.frames);
  let frames: SpinFrameCount = SPIN_FRAMES_DEFAULT;
  if (framesRaw !== undefined) {
    const n = /^\d{1,3}$/.test(framesRaw) ? Number(framesRaw) : NaN;
    if (!isSpinFrameCount(n)) throw new ServiceError('bad_request', `Invalid frames: use ${SPIN_FRAME_COUNTS.join(', ')}`);
    frames = n;
  }
  const widthRaw = singleParam('width', query.width);
  // the image call's integer rule and message (parseWidth), this call's range and default
  const width = widthRaw === undefined ? SPIN_WIDTH_DEFAULT : Math.min(SPIN_WIDTH_MAX, Math.max(SPIN_WIDTH_MIN, parseWidth(widthRaw)));
  return { frames, width };
}

/**
 * The widths a spin frame is shot at (the renderer on demand, the studio's pre-bake): a render composites
 * the smallest at least as wide as it needs, so one frame cache serves every output width with a few
 * shots of each frame rather than one per width.
 */
export const SPIN_BAKE_WIDTHS = [400, 800, 1600] as const;
export type SpinBakeWidth = (typeof SPIN_BAKE_WIDTHS)[number];

/** The bake width for a render that needs `width` pixels of the frame: the smallest at least as wide, 1600 at most. */
export function spinBakeWidth(width: number): SpinBakeWidth {
  for (const w of SPIN_BAKE_WIDTHS) if (w >= width) return w;
  return SPIN_BAKE_WIDTHS[SPIN_BAKE_WIDTHS.length - 1]!;
}

/** A frame's height at a bake width: the geometry frame's 16:9 (every bake width gives a whole number). */
export function spinBakeHeight(width: SpinBakeWidth): number {
  return Math.round((width * SPIN_GEOMETRY_HEIGHT) / SPIN_GEOMETRY_WIDTH);
}

/**
 * How a frame is shot, wherever it is: MSAA samples of each render (4, what lavapipe and every GPU
 * offer) and the light layers' depth (8 bits through the sRGB curve, as the committed sets). The
 * supersampling is each writer's setting (the renderer's SPIN_FRAME_SUPERSAMPLE, the studio's --supersample).
 */
export const SPIN_FRAME_SAMPLES = 4;
/** Jittered renders per pass by default: with 4x MSAA the 16 samples a pixel the asset format asks. */
export const SPIN_FRAME_SUPERSAMPLE_DEFAULT = 4;
export const SPIN_FRAME_LIGHT_DEPTH = 8;
