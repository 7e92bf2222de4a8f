import { hexToLinear } from '../../../shared/color/srgb.ts';
import type { CompositeJob } from '../../backends/backend.ts';
import type { RenderContext, Step } from '../context.ts';

/** The compositor's job for a resolved request whose layers (and plate) are in place. */
export function compositeJobOf(ctx: RenderContext): CompositeJob {
  const transparent = ctx.req.background === 'transparent';
  return {
    layers: ctx.layers!,
    color: hexToLinear(ctx.req.color),
    neutral: ctx.set.neutral,
    calibration: ctx.view.calibration,
    shadow: ctx.req.shadow && ctx.view.shadow,
    plate: ctx.plate ?? null,
    transparent: transparent ? ctx.set.backdrop : null,
  };
}

/** Recolour, shadow, plate (and the backdrop taken out for a transparent picture) on the selected backend. */
export const compositeStep: Step = {
  name: 'composite',
  async run(ctx, { backend }) {
    ctx.image = await backend.composite(compositeJobOf(ctx));
  },
};
