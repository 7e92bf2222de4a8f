import type { Step } from '../context.ts';

/**
 * The view's decoded layers at the smallest pre-scaled level at least as wide as the output (cached):
 * the full size, its halvings, the 2/3 size and its halvings. The finished picture is resized to the
 * exact output size once, when it is encoded, unless the level already has that size.
 */
export const layersStep: Step = {
  name: 'layers',
  async run(ctx, { store }) {
    ctx.layers = await store.levelFor(ctx.set, ctx.req.view, ctx.req.width);
  },
};
