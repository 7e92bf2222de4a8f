/**
 * After a bake: keeps a view's plate quad only where the plate is really seen. The baker projects the
 * plate's corners into every front or rear view; this drops the quad (null, so the gateway's
 * PLATE_UNMAPPED warning stays true) where
 * - the plate faces away from the camera (the projected quad is not clockwise), or
 * - other parts hide it: fewer than 40 % of the pixels inside the quad show the blank studio plate
 *   (linear 0.8, sRGB 231 on all three channels) in the base layer.
 */
import sharp from 'sharp';
import { layerPath } from '../../shared/asset-format/layer-files.ts';
import { readSetJsonAsWritten, writeSetJson } from '../../shared/asset-format/set-json.ts';

type Pt = [number, number];

const PLATE_SRGB = 231;

/** Twice the signed area; positive = clockwise in image coordinates (y down). */
function signedArea2(q: Pt[]): number {
  let s = 0;
  for (let i = 0; i < q.length; i++) {
    const [x0, y0] = q[i]!;
    const [x1, y1] = q[(i + 1) % q.length]!;
    s += x0 * y1 - x1 * y0;
  }
  return s;
}

function inside(q: Pt[], x: number, y: number): boolean {
  for (let i = 0; i < q.length; i++) {
    const [ax, ay] = q[i]!;
    const [bx, by] = q[(i + 1) % q.length]!;
    if ((bx - ax) * (y - ay) - (by - ay) * (x - ax) < 0) return false;
  }
  return true;
}

/** Share of the pixels inside the quad that show the blank plate. */
export async function plateShare(basePng: string, q: Pt[]): Promise<number> {
  const { data, info } = await sharp(basePng).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const xs = q.map((p) => p[0]), ys = q.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs))), x1 = Math.min(info.width - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys))), y1 = Math.min(info.height - 1, Math.ceil(Math.max(...ys)));
  let n = 0, plate = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!inside(q, x + 0.5, y + 0.5)) continue;
      n++;
      const k = (y * info.width + x) * info.channels;
      if (Math.abs(data[k]! - PLATE_SRGB) <= 2 && Math.abs(data[k + 1]! - PLATE_SRGB) <= 2 && Math.abs(data[k + 2]! - PLATE_SRGB) <= 2) plate++;
    }
  }
  return n ? plate / n : 0;
}

/** Checks every view's quad in `setDir/set.json`, rewrites it with the unseen ones set to null; returns what it dropped. */
export async function checkPlateQuads(setDir: string): Promise<string[]> {
  const set = await readSetJsonAsWritten(setDir);
  const notes: string[] = [];
  for (const [view, v] of Object.entries(set.views)) {
    const q = v.plate_quad;
    if (!q) continue;
    if (signedArea2(q) <= 0) {
      v.plate_quad = null;
      notes.push(`${view}: the plate faces away from the camera, no plate quad`);
      continue;
    }
    const share = await plateShare(layerPath(setDir, view, 'base'), q);
    if (share < 0.4) {
      v.plate_quad = null;
      notes.push(`${view}: the plate is hidden (${Math.round(share * 100)} % of it seen), no plate quad`);
    }
  }
  if (notes.length) await writeSetJson(setDir, set);
  return notes;
}
