import { invert3, squareToQuad, type Pt } from '../../plate/homography.ts';
import { plateTexture } from '../../plate/plate-raster.ts';
import { levelGeometry } from '../../assets/reduce-layers.ts';
import type { Step } from '../context.ts';

/** Plate raster at about 1.5× the quad's longest edge, and the homography that places it. */
export const PLATE_OVERSAMPLE = 1.5;

export const plateStep: Step = {
  name: 'plate',
  run(ctx) {
    const quad = ctx.view.plateQuad;
    if (!ctx.req.plate || !quad) {
      ctx.plate = null;
      return;
    }
    const { width, height } = ctx.layers!;
    // the level's own scale (its last row or column may cover part of a footprint, so its size is not exact)
    const s = 1 / levelGeometry(ctx.layers!).footprint;
    const q = quad.map(([x, y]) => [x * s, y * s] as const) as [Pt, Pt, Pt, Pt];
    let longest = 0;
    for (let i = 0; i < 4; i++) {
      const a = q[i]!;
      const b = q[(i + 1) % 4]!;
      longest = Math.max(longest, Math.hypot(b[0] - a[0], b[1] - a[1]));
    }
    const tex = plateTexture(ctx.req.plate, longest * PLATE_OVERSAMPLE);
    const hinv = invert3(squareToQuad(q));
    const xs = q.map((p) => p[0]);
    const ys = q.map((p) => p[1]);
    const x0 = Math.max(0, Math.floor(Math.min(...xs)) - 2);
    const y0 = Math.max(0, Math.floor(Math.min(...ys)) - 2);
    const x1 = Math.min(width, Math.ceil(Math.max(...xs)) + 2);
    const y1 = Math.min(height, Math.ceil(Math.max(...ys)) + 2);
    ctx.plate = { tex, hinv, bbox: [x0, y0, x1, y1] };
  },
};
