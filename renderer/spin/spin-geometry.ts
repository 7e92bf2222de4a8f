import type { Box } from '../../shared/framing.ts';
import type { AssetSetMeta } from '../../shared/asset-format/read-set.ts';
import { ALL_SPIN_YAWS, SPIN_GEOMETRY_HEIGHT, SPIN_GEOMETRY_WIDTH, spinFitBox } from '../../shared/spin.ts';
import { spinFrameGeometry } from '../../baker/spin/geometry.ts';

/** One frame's geometry in pixels of a SPIN_GEOMETRY_WIDTH × SPIN_GEOMETRY_HEIGHT frame. */
export interface SpinFrameGeometry {
  yaw: number;
  box: Box;
  groundY: number;
  plateQuad: [number, number][] | null;
}

/**
 * Every yaw's frame geometry of a set with a 3D source, by projection alone (baker/spin/geometry.ts: no
 * model, no GL), once per set revision: DescribeSet gives all 72, and `fit` framing of a frame uses its
 * box, so the layout a gateway computes from DescribeSet and the picture agree.
 */
export class SpinGeometry {
  private readonly bySet = new Map<string, { revision: string; frames: Map<number, SpinFrameGeometry>; turn: Box }>();

  /** null: the set has no 3D source. */
  frames(set: AssetSetMeta): Map<number, SpinFrameGeometry> | null {
    if (!set.spin) return null;
    const had = this.bySet.get(set.id);
    if (had && had.revision === set.revision) return had.frames;
    const frames = new Map<number, SpinFrameGeometry>();
    for (const yaw of ALL_SPIN_YAWS) {
      const g = spinFrameGeometry(set.spin, yaw, SPIN_GEOMETRY_WIDTH, SPIN_GEOMETRY_HEIGHT);
      frames.set(yaw, { yaw, box: g.box, groundY: g.groundY, plateQuad: g.plateQuad });
    }
    this.bySet.set(set.id, { revision: set.revision, frames, turn: spinFitBox([...frames.values()].map((f) => f.box))! });
    return frames;
  }

  /** The box `fit` framing fits for every frame (shared/spin.ts spinFitBox) at a frame `width` wide; null without a source. */
  turnBoxAt(set: AssetSetMeta, width: number): Box | null {
    if (!this.frames(set)) return null;
    const b = this.bySet.get(set.id)!.turn;
    const s = width / SPIN_GEOMETRY_WIDTH;
    return { x: b.x * s, y: b.y * s, width: b.width * s, height: b.height * s };
  }

  /** A frame's geometry scaled to a frame `width` pixels wide (a bake width; same 16:9). */
  frameAt(set: AssetSetMeta, yaw: number, width: number): SpinFrameGeometry | null {
    const g = this.frames(set)?.get(yaw);
    if (!g) return null;
    const s = width / SPIN_GEOMETRY_WIDTH;
    return {
      yaw,
      box: { x: g.box.x * s, y: g.box.y * s, width: g.box.width * s, height: g.box.height * s },
      groundY: g.groundY * s,
      plateQuad: g.plateQuad ? g.plateQuad.map(([x, y]) => [x * s, y * s] as [number, number]) : null,
    };
  }
}
