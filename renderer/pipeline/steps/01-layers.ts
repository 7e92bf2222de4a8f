import type { RenderContext, Step } from '../context.ts';

/**
 * How wide the shot must be for the output: the request's width, or, when the frame scales the shot
 * otherwise (framing), the shot's full width at the frame's scale, so the level is never enlarged
 * while a larger one exists.
 */
export function sourceWidth(ctx: RenderContext): number {
  const f = ctx.frame;
  if (!f || f.wholeShot) return ctx.req.width;
  return Math.ceil(ctx.view.width * f.scaleX - 1e-6);
}

/**
 * The view's decoded layers at the smallest pre-scaled level at least as wide as the output (cached):
 * the full size, its halvings, the 2/3 size and its halvings. The finished picture is resized to the
 * exact output size once, when it is encoded, unless the level already has that size.
 */
export const layersStep: Step = {
  name: 'layers',
  async run(ctx, { store }) {
    ctx.layers = await store.levelFor(ctx.set, ctx.req.view, sourceWidth(ctx));
  },
};
