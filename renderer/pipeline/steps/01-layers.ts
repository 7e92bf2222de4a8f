import type { Step } from '../context.ts';

/**
 * The view's decoded layers at the smallest pre-scaled level at least as wide as the output (cached);
 * the finished picture is resized to the exact width once, when it is encoded.
 */
export const layersStep: Step = {
  name: 'layers',
  async run(ctx, { store }) {
    ctx.layers = await store.levelFor(ctx.set, ctx.req.view, ctx.req.width);
  },
};
