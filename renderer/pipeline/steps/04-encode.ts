import { encodeImage } from '../../encode/encode.ts';
import type { Step } from '../context.ts';

/** sharp encodes the picture once, in the requested format. */
export const encodeStep: Step = {
  name: 'encode',
  async run(ctx) {
    ctx.encoded = await encodeImage(ctx.image!, ctx.req.format);
  },
};
