import { outputHeight } from '../../assets/asset-store.ts';
import { encodeImage } from '../../encode/encode.ts';
import type { Step } from '../context.ts';

/**
 * sharp resizes the finished picture to the exact output size (once, and only when the level's size is
 * not already the output size) and encodes it in the requested format.
 */
export const encodeStep: Step = {
  name: 'encode',
  async run(ctx, { backend }) {
    if (ctx.framed) {
      // the framing step made the output-size picture already (and gave the composite back)
      ctx.encoded = await encodeImage(ctx.framed, ctx.req.format);
      ctx.framed = undefined;
      return;
    }
    const image = ctx.image!;
    const size = { width: ctx.req.width, height: ctx.frame?.height ?? outputHeight(ctx.view, ctx.req.width) };
    // encodeImage resizes exactly when the sizes differ; a width that is a level's needs none
    ctx.resize = size.width === image.width && size.height === image.height ? null : { from: [image.width, image.height], to: [size.width, size.height] };
    ctx.encoded = await encodeImage(image, ctx.req.format, size);
    ctx.image = undefined;
    backend.release?.(image);
  },
};
