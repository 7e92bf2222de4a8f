import fs from 'node:fs/promises';
import path from 'node:path';
import sharp, { type Metadata } from 'sharp';
import { VIEW_IDS, isViewId, type ViewId } from '../views.ts';
import { hexToLinear } from '../color/srgb.ts';
import { LAYER_FILES, layerPath } from './layer-files.ts';
import { AssetSetError, readSetJson, setJsonPath, type SpinSourceJson } from './set-json.ts';

/**
 * Reads a whole asset set of format 2 as the renderer loads it (docs/asset-format.md): set.json and,
 * per view, the headers of `<view>/{base,paint,diffuse,specular[,shadow][,coverage]}.png`.
 */
export type Quad = [[number, number], [number, number], [number, number], [number, number]];

export interface ViewMeta {
  width: number;
  height: number;
  plateQuad: Quad | null;
  shadow: boolean;
  /** A coverage (alpha) layer exists: the view can be rendered on a transparent background. */
  coverage: boolean;
  /** Bit depth of diffuse/specular on disk: 16 = linear, 8 = through the sRGB curve. */
  lightDepth: { diffuse: 8 | 16; specular: 8 | 16 };
  /** docs/asset-format.md, "Calibration". */
  calibration: { diffuseGain: number; specularFloor: number };
}

export type Rgb = [number, number, number];
/** A point or direction in the studio frame (metres; +X forward, +Y up, +Z the car's right side). */
export type Vec3 = [number, number, number];

export interface SpinPlate {
  /** Top-left, top-right, bottom-right, bottom-left as seen from outside. */
  corners: [Vec3, Vec3, Vec3, Vec3];
  /** Outward unit normal. */
  normal: Vec3;
}

/**
 * A set's 3D source (set.json `source.spin`, docs/asset-format.md "The 3D source"): what is needed to
 * shoot its spin frames again, and to find their geometry by projection alone.
 */
export interface SpinSourceMeta {
  /** Absolute path of the kept model (a .glb). */
  modelPath: string;
  /** Absolute path of the kept role map, or null when the set was baked without one. */
  roleMapPath: string | null;
  /** How the model was put into the studio frame: axes, metres per unit, then the offset (metres). */
  normalisation: { up: string; forward: string; scale: number; offset: Vec3 };
  /** The turntable camera: one elevation and distance for every yaw, fixed target, vertical lens shift (NDC). */
  rig: { fov: number; elevationDegrees: number; distance: number; target: Vec3; shiftY: number };
  /** The vertices of the convex hull of the drawn vehicle. */
  outline: Vec3[];
  plates: { front: SpinPlate | null; rear: SpinPlate | null };
}

export interface AssetSetMeta {
  id: string;
  revision: string;
  dir: string;
  /** The neutral paint of the base shot, linear RGB. */
  neutral: Rgb;
  /** The studio backdrop, linear RGB at the first and last row; null when no view has coverage. */
  backdrop: { top: Rgb; bottom: Rgb } | null;
  views: Partial<Record<ViewId, ViewMeta>>;
  /** null: the set keeps no 3D source (procedural, photographed), so it has no spin. */
  spin: SpinSourceMeta | null;
}

/** Twice the signed area of a polygon (positive = clockwise in image coordinates, y down). */
function signedArea2(q: Quad): number {
  let s = 0;
  for (let i = 0; i < 4; i++) {
    const [x0, y0] = q[i]!;
    const [x1, y1] = q[(i + 1) % 4]!;
    s += x0 * y1 - x1 * y0;
  }
  return s;
}

function isConvex(q: Quad): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [ax, ay] = q[i]!;
    const [bx, by] = q[(i + 1) % 4]!;
    const [cx, cy] = q[(i + 2) % 4]!;
    const cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx);
    if (cross === 0) return false;
    const s = Math.sign(cross);
    if (sign === 0) sign = s;
    else if (s !== sign) return false;
  }
  return true;
}

/**
 * Reads and validates one set: set.json's shape, the view ids, each view's layer files (present,
 * PNG, size, channels, depth) and plate quad. Throws AssetSetError naming the offending file.
 * Decodes no pixels (sharp reads the headers only).
 */
export async function readSetMeta(dir: string): Promise<AssetSetMeta> {
  const setFile = setJsonPath(dir);
  const s = await readSetJson(dir);
  const views: Partial<Record<ViewId, ViewMeta>> = {};
  const entries = Object.entries(s.views);
  if (entries.length === 0) throw new AssetSetError(setFile, 'views: no view listed');
  for (const [viewId, v] of entries) {
    if (!isViewId(viewId)) {
      throw new AssetSetError(setFile, `views.${viewId}: unknown view id (expected one of ${VIEW_IDS.join(', ')})`);
    }
    if (v.coverage && !s.backdrop) {
      throw new AssetSetError(setFile, `views.${viewId}.coverage is true but the set has no backdrop`);
    }
  }
  for (const [viewId, v] of entries) {
    if (!isViewId(viewId)) continue;
    if (v.plate_quad) {
      const q = v.plate_quad as Quad;
      for (const [x, y] of q) {
        if (x < 0 || y < 0 || x > v.width || y > v.height) {
          throw new AssetSetError(setFile, `views.${viewId}.plate_quad: corner [${x}, ${y}] lies outside ${v.width}x${v.height}`);
        }
      }
      if (!isConvex(q) || signedArea2(q) <= 0) {
        throw new AssetSetError(setFile, `views.${viewId}.plate_quad: corners must form a convex quad, clockwise from top-left`);
      }
    }
    const depths = { diffuse: 8 as 8 | 16, specular: 8 as 8 | 16 };
    for (const layer of LAYER_FILES) {
      const file = layerPath(dir, viewId, layer);
      const exists = await fs.stat(file).then(
        (st) => st.isFile(),
        () => false,
      );
      if (layer === 'shadow' || layer === 'coverage') {
        if (!v[layer]) {
          if (exists) throw new AssetSetError(file, `present but set.json views.${viewId}.${layer} is false`);
          continue;
        }
      }
      if (!exists) throw new AssetSetError(file, 'missing');
      let meta: Metadata;
      try {
        meta = await sharp(file).metadata();
      } catch (e) {
        throw new AssetSetError(file, `not a readable image (${(e as Error).message})`);
      }
      if (meta.format !== 'png') throw new AssetSetError(file, `must be PNG, found ${meta.format}`);
      if (meta.width !== v.width || meta.height !== v.height) {
        throw new AssetSetError(
          file,
          `size ${meta.width}x${meta.height} differs from set.json views.${viewId} (${v.width}x${v.height})`,
        );
      }
      const channels = meta.channels ?? 0;
      if (layer === 'base') {
        if (channels < 3 || meta.depth !== 'uchar') {
          throw new AssetSetError(file, `must be 8-bit RGB or RGBA, found ${channels} channel(s) of ${meta.depth}`);
        }
      } else if (layer === 'paint' || layer === 'shadow' || layer === 'coverage') {
        if (channels !== 1 || meta.depth !== 'uchar') {
          throw new AssetSetError(file, `must be 8-bit greyscale, found ${channels} channel(s) of ${meta.depth}`);
        }
      } else {
        if (channels !== 1 || (meta.depth !== 'uchar' && meta.depth !== 'ushort')) {
          throw new AssetSetError(file, `must be 8- or 16-bit greyscale, found ${channels} channel(s) of ${meta.depth}`);
        }
        depths[layer] = meta.depth === 'ushort' ? 16 : 8;
      }
    }
    views[viewId] = {
      width: v.width,
      height: v.height,
      plateQuad: v.plate_quad ? (v.plate_quad.map(([x, y]) => [x, y]) as Quad) : null,
      shadow: v.shadow,
      coverage: v.coverage,
      lightDepth: depths,
      calibration: { diffuseGain: v.calibration.diffuse_gain, specularFloor: v.calibration.specular_floor },
    };
  }
  return {
    id: s.id,
    revision: s.revision,
    dir,
    neutral: hexToLinear(s.neutral_paint),
    backdrop: s.backdrop ? { top: s.backdrop.top, bottom: s.backdrop.bottom } : null,
    views,
    spin: s.source?.spin ? await spinSourceMeta(dir, s.source.spin) : null,
  };
}

async function isFile(file: string): Promise<boolean> {
  return fs.stat(file).then(
    (st) => st.isFile(),
    () => false,
  );
}

/** `source.spin` with its files' absolute paths; a file it names that is not there is refused like a missing layer. */
async function spinSourceMeta(dir: string, j: SpinSourceJson): Promise<SpinSourceMeta> {
  const modelPath = path.join(dir, j.model);
  if (!(await isFile(modelPath))) throw new AssetSetError(modelPath, 'missing (set.json source.spin.model)');
  const roleMapPath = j.role_map === null ? null : path.join(dir, j.role_map);
  if (roleMapPath && !(await isFile(roleMapPath))) throw new AssetSetError(roleMapPath, 'missing (set.json source.spin.role_map)');
  const plate = (p: SpinSourceJson['plates']['front']): SpinPlate | null => (p ? { corners: p.corners, normal: p.normal } : null);
  return {
    modelPath,
    roleMapPath,
    normalisation: { ...j.normalisation },
    rig: {
      fov: j.rig.fov,
      elevationDegrees: j.rig.elevation_degrees,
      distance: j.rig.distance,
      target: j.rig.target,
      shiftY: j.rig.shift_y,
    },
    outline: j.outline,
    plates: { front: plate(j.plates.front), rear: plate(j.plates.rear) },
  };
}
