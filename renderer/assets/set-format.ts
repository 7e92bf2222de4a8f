import fs from 'node:fs/promises';
import path from 'node:path';
import sharp, { type Metadata } from 'sharp';
import { z } from 'zod';
import { VIEW_IDS, isViewId, type ViewId } from '../../shared/views.ts';
import { hexToLinear } from '../color/srgb.ts';

/**
 * The studio asset-set format 2 as the loader reads it (docs/asset-format.md): `<set>/set.json` and
 * per view `<view>/{base,paint,diffuse,specular[,shadow][,coverage]}.png`.
 */
export const SET_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MAX_LAYER_WIDTH = 4096;
export const LAYER_FILES = ['base', 'paint', 'diffuse', 'specular', 'shadow', 'coverage'] as const;
export const ASSET_FORMAT = 2;
export type LayerName = (typeof LAYER_FILES)[number];

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

export interface AssetSetMeta {
  id: string;
  revision: string;
  dir: string;
  /** The neutral paint of the base shot, linear RGB. */
  neutral: Rgb;
  /** The studio backdrop, linear RGB at the first and last row; null when no view has coverage. */
  backdrop: { top: Rgb; bottom: Rgb } | null;
  views: Partial<Record<ViewId, ViewMeta>>;
}

export class AssetSetError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'AssetSetError';
  }
}

const point = z.tuple([z.number().finite(), z.number().finite()]);
const viewSchema = z
  .object({
    width: z.number().int().positive().max(MAX_LAYER_WIDTH),
    height: z.number().int().positive().max(MAX_LAYER_WIDTH),
    plate_quad: z.union([z.tuple([point, point, point, point]), z.null()]),
    shadow: z.boolean(),
    coverage: z.boolean().default(false),
    calibration: z
      .object({
        diffuse_gain: z.number().finite().positive().max(100),
        specular_floor: z.number().finite().min(0).max(1),
      })
      .strict(),
  })
  .strict();
const linearRgb = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1), z.number().min(0).max(1)]);
const setSchema = z.object({
  id: z.string().regex(SET_ID_RE),
  format: z.literal(ASSET_FORMAT, {
    error: 'must be 2 (format 1 sets have no calibration: re-bake or re-import them, docs/asset-format.md)',
  }),
  revision: z.union([z.string().min(1), z.number()]).transform((r) => String(r)),
  source: z.record(z.string(), z.unknown()).optional(),
  neutral_paint: z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'must be #RRGGBB'),
  backdrop: z.object({ top: linearRgb, bottom: linearRgb }).strict().optional(),
  views: z.record(z.string(), viewSchema),
});

export function layerPath(dir: string, view: ViewId, layer: LayerName): string {
  return path.join(dir, view, `${layer}.png`);
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

/** Reads a set.json (or a photographed shoot's) and checks it against `schema`; errors name the file. */
export async function readSetJson<S extends z.ZodType>(setFile: string, schema: S): Promise<z.output<S>> {
  let raw: string;
  try {
    raw = await fs.readFile(setFile, 'utf8');
  } catch (e) {
    throw new AssetSetError(setFile, `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new AssetSetError(setFile, `invalid JSON: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new AssetSetError(setFile, `${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  return parsed.data;
}

/**
 * Reads and validates one set: set.json's shape, the view ids, each view's layer files (present,
 * PNG, size, channels, depth) and plate quad. Throws AssetSetError naming the offending file.
 * Decodes no pixels (sharp reads the headers only).
 */
export async function readSetMeta(dir: string): Promise<AssetSetMeta> {
  const setFile = path.join(dir, 'set.json');
  const s = await readSetJson(setFile, setSchema);
  const folder = path.basename(dir);
  if (s.id !== folder) throw new AssetSetError(setFile, `id "${s.id}" differs from its folder name "${folder}"`);
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
  };
}
