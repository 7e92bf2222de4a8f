import type { Step } from '../context.ts';

/** The view's decoded layers at exactly the output width (cached, from the nearest pre-scaled level). */
export const layersStep: Step = {
  name: 'layers',
  async run(ctx, { store }) {
    ctx.layers = await store.layersAt(ctx.set, ctx.req.view, ctx.req.width);
  },
};
