import sharp from 'sharp';
import type { Box } from '../../shared/framing.ts';
import { layerPath } from '../../shared/asset-format/layer-files.ts';
import { nonZeroBox } from './plane-box.ts';

/** A view's vehicle geometry at full size: the coverage layer's bounding box and its bottom, the ground line. */
export interface VehicleGeometry {
  box: Box;
  groundY: number;
}

/** What the boxes need of a set (structural, so the set format's module is not tied to this one). */
export interface SetRef {
  id: string;
  revision: string;
  dir: string;
  views: Record<string, { coverage: boolean } | undefined>;
}

/**
 * The vehicle box of each view, found once per set revision from its coverage layer (a full-size
 * decode, tens of ms) and kept: framing and DescribeSet ask for it on every call. A new revision of a
 * set drops the old one's boxes.
 */
export class VehicleBoxes {
  private readonly boxes = new Map<string, Promise<VehicleGeometry | null>>();
  private readonly revisions = new Map<string, string>();

  /** null for a view without a coverage layer (or one with no vehicle pixel at all). */
  get(set: SetRef, view: string): Promise<VehicleGeometry | null> {
    if (this.revisions.get(set.id) !== set.revision) {
      for (const k of [...this.boxes.keys()]) if (k.startsWith(`${set.id}\0`)) this.boxes.delete(k);
      this.revisions.set(set.id, set.revision);
    }
    const key = `${set.id}\0${view}`;
    let p = this.boxes.get(key);
    if (!p) {
      p = set.views[view]?.coverage ? coverageBox(layerPath(set.dir, view, 'coverage')) : Promise.resolve(null);
      // a failed read is not kept: the next call tries again (a set being replaced)
      p.catch(() => this.boxes.delete(key));
      this.boxes.set(key, p);
    }
    return p;
  }
}

/** The bounding box of the non-zero pixels of an 8-bit coverage layer, in pixel edges. */
export async function coverageBox(file: string): Promise<VehicleGeometry | null> {
  const { data, info } = await sharp(file).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const b = nonZeroBox(data, info.width, info.height);
  if (!b) return null;
  const [x0, y0, x1, y1] = b;
  return { box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, groundY: y1 };
}
