import { outputHeight } from '../../assets/asset-store.ts';
import { encodeImage } from '../../encode/encode.ts';
import type { Step } from '../context.ts';

/** sharp resizes the finished picture to the exact output size (once) and encodes it in the requested format. */
export const encodeStep: Step = {
  name: 'encode',
  async run(ctx, { backend }) {
    const image = ctx.image!;
    ctx.encoded = await encodeImage(image, ctx.req.format, {
      width: ctx.req.width,
      height: outputHeight(ctx.view, ctx.req.width),
    });
    ctx.image = undefined;
    backend.release?.(image);
  },
};
