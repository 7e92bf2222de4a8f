import { hexToLinear } from '../../color/srgb.ts';
import type { Step } from '../context.ts';

/** Recolour, shadow and plate in linear light on the selected backend (gl or cpu). */
export const compositeStep: Step = {
  name: 'composite',
  async run(ctx, { backend }) {
    ctx.image = await backend.composite({
      layers: ctx.layers!,
      color: hexToLinear(ctx.req.color),
      shadow: ctx.req.shadow && ctx.view.shadow,
      plate: ctx.plate ?? null,
    });
  },
};
