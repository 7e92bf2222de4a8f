import type { Layers } from '../assets/layers.ts';
import type { LevelExtras } from '../assets/level-extras.ts';
import type { Mat3 } from '../plate/homography.ts';
import type { PlateTexture } from '../plate/plate-raster.ts';

/** Where the plate goes in the output picture. */
export interface PlatePlacement {
  tex: PlateTexture;
  /** Output pixel coordinates (pixel centres at +0.5) → unit-square plate coordinates. */
  hinv: Mat3;
  /** Output pixels that may be touched: [x0, y0, x1, y1), clipped to the picture. */
  bbox: [number, number, number, number];
}

/** Everything a compositor needs for one picture (docs/asset-format.md, "Compositing"), at the layers' size. */
export interface CompositeJob {
  layers: Layers;
  /** Paint colour, linear light RGB. */
  color: [number, number, number];
  /** The neutral paint of the base shot, linear light RGB. */
  neutral: [number, number, number];
  /** The view's calibration: D' = gain·D, S' = max(0, S − floor). */
  calibration: { diffuseGain: number; specularFloor: number };
  /** Apply the studio shadow (only set when the view has one). */
  shadow: boolean;
  plate: PlatePlacement | null;
  /** Transparent background: the backdrop to remove (linear RGB at the first and last row); null = studio backdrop. */
  transparent: { top: [number, number, number]; bottom: [number, number, number] } | null;
}

/**
 * An 8-bit sRGB picture, rows top to bottom, no padding. RGB, or RGBA: with `alpha` the fourth channel
 * is straight (not premultiplied) alpha; without it the fourth channel is ignored (gl readback).
 */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
  channels: 3 | 4;
  alpha: boolean;
}

/** Highlight roll-off knee (docs/asset-format.md, "shoulder"): the paint is unchanged below it. */
export const SHOULDER_KNEE = 0.9;

/** A compositor backend: gl (headless-gl + three.js) or cpu (worker threads). */
export interface Compositor {
  readonly name: 'gl' | 'cpu';
  /** For the log and the bench: e.g. the GL renderer string or "cpu × 2 workers". */
  readonly description: string;
  /**
   * What the asset store adds to each level it makes for this backend (assets/level-extras.ts): the cpu
   * backend's arena with an output picture, shadowed base and level tables (backends/cpu/level-extras.ts);
   * the gl backend's the planes in an arena only (ARENA_ONLY_LEVEL_EXTRAS there).
   */
  readonly levelExtras: LevelExtras;
  composite(job: CompositeJob): Promise<RgbImage>;
  /** The picture has been encoded and is no longer read: its memory may serve a later composite. */
  release?(img: RgbImage): void;
  /** Drops cached GPU resources of layers that left the asset cache. */
  forget?(layersKey: string): void;
  close(): Promise<void>;
}

/** The plate's light: the base shot's luminance at the blank plate, relative to a lit white plate. */
export const PLATE_WHITE_LINEAR = 0.8;
