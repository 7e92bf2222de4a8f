import { outputHeight } from '../../assets/asset-store.ts';
import { encodeImage } from '../../encode/encode.ts';
import type { Step } from '../context.ts';

/** sharp resizes the finished picture to the exact output size (once) and encodes it in the requested format. */
export const encodeStep: Step = {
  name: 'encode',
  async run(ctx) {
    ctx.encoded = await encodeImage(ctx.image!, ctx.req.format, {
      width: ctx.req.width,
      height: outputHeight(ctx.view, ctx.req.width),
    });
  },
};
