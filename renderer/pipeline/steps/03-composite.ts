import { hexToLinear } from '../../color/srgb.ts';
import type { Step } from '../context.ts';

/** Recolour, shadow, plate (and the backdrop taken out for a transparent picture) on the selected backend. */
export const compositeStep: Step = {
  name: 'composite',
  async run(ctx, { backend }) {
    const transparent = ctx.req.background === 'transparent';
    ctx.image = await backend.composite({
      layers: ctx.layers!,
      color: hexToLinear(ctx.req.color),
      neutral: ctx.set.neutral,
      calibration: ctx.view.calibration,
      shadow: ctx.req.shadow && ctx.view.shadow,
      plate: ctx.plate ?? null,
      transparent: transparent ? ctx.set.backdrop : null,
    });
  },
};
