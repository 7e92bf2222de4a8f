import { ServiceError } from './errors.ts';
import { singleParam } from './query-param.ts';
import type { ShotId } from './shot-id.ts';

/**
 * Framing: where the picture's frame lies on the studio shot. One owner of the geometry: the
 * renderer's framing step draws with `frameGeometry`, and the gateway computes the layout metadata
 * of an image answer with the same function, so the two cannot drift.
 */

export const FRAMINGS = ['studio', 'fit'] as const;
export type Framing = (typeof FRAMINGS)[number];
export const ASPECTS = ['16:9', '3:2', '4:3', '1:1', '2:1'] as const;
export type Aspect = (typeof ASPECTS)[number];
export const DEFAULT_FRAMING: Framing = 'studio';
export const DEFAULT_ASPECT: Aspect = '16:9';
export const MARGIN_MIN = 0;
export const MARGIN_MAX = 40;
export const MARGIN_DEFAULT = 5;

export interface FramingOptions {
  framing: Framing;
  /** Percent of the output's width (left and right) and of its height (top and bottom); used by `fit`. */
  margin: number;
  aspect: Aspect;
}

export const DEFAULT_FRAMING_OPTIONS: FramingOptions = { framing: DEFAULT_FRAMING, margin: MARGIN_DEFAULT, aspect: DEFAULT_ASPECT };

/** A rectangle in pixels: x right, y down, pixel edges at whole numbers (pixel centres at +0.5). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The frame on the shot: the output size, and the map from the view's full-size pixel coordinates to
 * the output's, `X = x·scaleX + offsetX`, `Y = y·scaleY + offsetY`.
 */
export interface FrameGeometry {
  width: number;
  height: number;
  scaleX: number;
  scaleY: number;
  offsetX: number;
  offsetY: number;
  /** The output is the whole shot resized, nothing added or cut: today's studio picture. */
  wholeShot: boolean;
}

export function isFraming(s: string): s is Framing {
  return (FRAMINGS as readonly string[]).includes(s);
}

export function isAspect(s: string): s is Aspect {
  return (ASPECTS as readonly string[]).includes(s);
}

function aspectRatio(a: Aspect): number {
  const [w, h] = a.split(':').map(Number) as [number, number];
  return w / h;
}

/** The output height for a width at an aspect, rounded like a view's own height (`round(width·H/W)`). */
export function frameHeight(width: number, aspect: Aspect): number {
  return Math.round(width / aspectRatio(aspect));
}

export function framingError(param: 'framing' | 'margin' | 'aspect'): ServiceError {
  const rule = {
    framing: 'use studio or fit',
    margin: `use an integer percent from ${MARGIN_MIN} to ${MARGIN_MAX}`,
    aspect: `use ${ASPECTS.join(', ')}`,
  }[param];
  return new ServiceError('bad_request', `Invalid ${param}: ${rule}`);
}

/**
 * `framing`, `margin`, `aspect` of the image query (docs/api.md, "Framing"). A margin is an integer
 * percent (no sign, no fraction), refused rather than clamped: it changes what a picture shows.
 */
export function parseFramingOptions(query: Record<string, unknown>): FramingOptions {
  const framingRaw = singleParam('framing', query.framing);
  const framing = framingRaw === undefined ? DEFAULT_FRAMING : framingRaw.toLowerCase();
  if (!isFraming(framing)) throw framingError('framing');
  const marginRaw = singleParam('margin', query.margin);
  let margin = MARGIN_DEFAULT;
  if (marginRaw !== undefined) {
    if (!/^\d+$/.test(marginRaw) || Number(marginRaw) > MARGIN_MAX) throw framingError('margin');
    margin = Number(marginRaw);
  }
  const aspect = singleParam('aspect', query.aspect) ?? DEFAULT_ASPECT;
  if (!isAspect(aspect)) throw framingError('aspect');
  return { framing, margin, aspect };
}

/**
 * What is drawn: the margin only matters with `fit`, so studio requests that differ only in it are
 * one picture (one signed URL, cache entry and ETag).
 */
export function canonicalFraming(f: FramingOptions): FramingOptions {
  return f.framing === 'fit' ? f : { ...f, margin: MARGIN_DEFAULT };
}

/** Whether a request's framing is the default (today's studio picture at 16:9): nothing is added to its keys. */
export function isDefaultFraming(f: FramingOptions): boolean {
  return f.framing === DEFAULT_FRAMING && f.aspect === DEFAULT_ASPECT;
}

/**
 * The frame for an output `width` on a view shot at `view.width × view.height` (full size).
 *
 * - `studio`: the whole shot, scaled to fit inside the frame and centred (the frame's extra rows or
 *   columns show the backdrop); at the shot's own aspect that is the shot itself, as it always was. The
 *   default request (studio, no other aspect asked) keeps the shot's own aspect, whatever it is: the
 *   same picture, height and ETag as before framing existed, also for a set not shot at 16:9.
 * - `fit`: the vehicle box (full-size pixels) scaled so that its limiting side fills the frame less
 *   twice the margin, centred horizontally, its bottom (the ground line) on the bottom margin, so the
 *   ground line is at the same height in every view; `top_down` has no ground and is centred vertically.
 *   A spin frame passes `sweep` (shared/spin.ts spinFitBox, the union of the turn's boxes): the scale
 *   and the horizontal centre are the sweep's, the ground line the frame's own.
 */
export function frameGeometry(
  view: { width: number; height: number },
  viewId: ShotId,
  box: Box | null,
  width: number,
  f: FramingOptions,
  sweep: Box | null = null,
): FrameGeometry {
  const shotHeight = Math.round((width * view.height) / view.width);
  const height = f.framing === 'studio' && f.aspect === DEFAULT_ASPECT ? shotHeight : frameHeight(width, f.aspect);
  if (f.framing === 'studio' || !box || box.width <= 0 || box.height <= 0) {
    if (shotHeight === height) {
      // exactly as the picture was always resized: each axis to its own rounded size
      return { width, height, scaleX: width / view.width, scaleY: height / view.height, offsetX: 0, offsetY: 0, wholeShot: true };
    }
    const s = Math.min(width / view.width, height / view.height);
    return {
      width,
      height,
      scaleX: s,
      scaleY: s,
      offsetX: (width - view.width * s) / 2,
      offsetY: (height - view.height * s) / 2,
      wholeShot: false,
    };
  }
  const m = f.margin / 100;
  // a spin frame's scale and horizontal place come from the box of the whole turn (the sweep), so the
  // vehicle keeps its size and stays on the turntable's axis; its own ground line still goes on the
  // bottom margin, so the floor is at one height in every frame (the sweep holds every frame's box, so
  // each still fits inside the margins)
  const fitOn = sweep && sweep.width > 0 && sweep.height > 0 ? sweep : box;
  const s = Math.min(((1 - 2 * m) * width) / fitOn.width, ((1 - 2 * m) * height) / fitOn.height);
  const offsetX = width / 2 - (fitOn.x + fitOn.width / 2) * s;
  const offsetY = viewId === 'top_down' ? height / 2 - (box.y + box.height / 2) * s : (1 - m) * height - (box.y + box.height) * s;
  return { width, height, scaleX: s, scaleY: s, offsetX, offsetY, wholeShot: false };
}

export type Point = [number, number];

/** The layout metadata of an image answer (docs/api.md, "Layout"): output pixels, after framing. */
export interface Layout {
  width: number;
  height: number;
  vehicle_box: Box;
  ground_y: number | null;
  plate_quad: Point[] | null;
}

const r2 = (v: number) => Math.round(v * 100) / 100;

/**
 * The vehicle box, ground line and plate of a view (full-size pixels) where the frame puts them. The
 * box is rounded out to whole output pixels (those the vehicle touches, as a page would crop) and
 * clipped to the frame; `ground_y` is its bottom, null for top_down; `plate_quad` is null where no
 * plate is drawn.
 */
export function layoutOf(
  g: FrameGeometry,
  viewId: ShotId,
  box: Box,
  groundY: number,
  plateQuad: readonly (readonly [number, number])[] | null,
): Layout {
  // a hair's tolerance, so an edge that lands on a whole pixel is not rounded a pixel out
  const X = (x: number) => x * g.scaleX + g.offsetX;
  const Y = (y: number) => y * g.scaleY + g.offsetY;
  const x0 = Math.max(0, Math.floor(X(box.x) + 1e-6));
  const y0 = Math.max(0, Math.floor(Y(box.y) + 1e-6));
  const x1 = Math.min(g.width, Math.ceil(X(box.x + box.width) - 1e-6));
  const y1 = Math.min(g.height, Math.ceil(Y(box.y + box.height) - 1e-6));
  const ground = Math.min(g.height, Math.max(0, Math.ceil(Y(groundY) - 1e-6)));
  return {
    width: g.width,
    height: g.height,
    vehicle_box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 },
    ground_y: viewId === 'top_down' ? null : ground,
    plate_quad: plateQuad ? plateQuad.map(([x, y]) => [r2(X(x)), r2(Y(y))] as Point) : null,
  };
}
