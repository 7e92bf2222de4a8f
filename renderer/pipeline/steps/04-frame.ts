import sharp from 'sharp';
import { linearToSrgb } from '../../../shared/color/srgb.ts';
import { levelGeometry } from '../../assets/reduce-layers.ts';
import { resizeKernel } from '../../encode/encode.ts';
import type { Step } from '../context.ts';

/**
 * Framing (shared/framing.ts `frameGeometry`): the composited shot scaled by the frame's scale and put
 * where the frame says, on an output-size canvas. What the frame shows beyond the shot is the studio
 * backdrop's gradient continued past the shot's first and last rows (so its edge shows no seam), or
 * transparent pixels on a transparent background. A frame that is the whole shot (the default studio
 * picture) leaves the picture to the encode step, which resizes it as it always did.
 */
/** A set.json without a backdrop (it has no coverage layer) names no colour for it: white around its shot. */
const WHITE = { top: [1, 1, 1], bottom: [1, 1, 1] };

export const frameStep: Step = {
  name: 'frame',
  async run(ctx, { backend }) {
    const f = ctx.frame;
    if (!f || f.wholeShot) return;
    const image = ctx.image!;
    // level pixels → output pixels (the level's own footprint: its last row or column may be partial)
    const k = levelGeometry(ctx.layers!).footprint * f.scaleX;
    const rw = Math.max(1, Math.round(image.width * k));
    const rh = Math.max(1, Math.round(image.height * k));
    // placed so that the frame's centre shows exactly the point of the shot the geometry puts there:
    // the scale's rounding to whole pixels then moves nothing by more than a quarter of a pixel
    const footprint = levelGeometry(ctx.layers!).footprint;
    const centreX = (f.width / 2 - f.offsetX) / f.scaleX / footprint; // level pixels
    const centreY = (f.height / 2 - f.offsetY) / f.scaleY / footprint;
    const left = Math.round(f.width / 2 - (centreX * rw) / image.width);
    const top = Math.round(f.height / 2 - (centreY * rh) / image.height);
    const channels = image.alpha ? 4 : 3;
    const out = Buffer.alloc(f.width * f.height * channels); // transparent where nothing is drawn
    if (!image.alpha) {
      // output row centre → the level's continuous row (as the resize maps it) → the full size's row
      fillBackdrop(out, f.width, f.height, ctx.set.backdrop ?? WHITE, ctx.view.height, (y) => (((y + 0.5 - top) * image.height) / rh) * footprint - 0.5);
    }

    // the part of the scaled shot inside the frame
    const x0 = Math.max(0, -left);
    const y0 = Math.max(0, -top);
    const x1 = Math.min(rw, f.width - left);
    const y1 = Math.min(rh, f.height - top);
    if (x1 > x0 && y1 > y0) {
      const input = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
      let s = sharp(input, { raw: { width: image.width, height: image.height, channels: image.channels } });
      if (image.channels === 4 && !image.alpha) s = s.removeAlpha();
      if (rw !== image.width || rh !== image.height) s = s.resize(rw, rh, { kernel: resizeKernel(image.width, rw), fit: 'fill' });
      if (x0 > 0 || y0 > 0 || x1 < rw || y1 < rh) s = s.extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 });
      const part = await s.raw().toBuffer();
      const rowBytes = (x1 - x0) * channels;
      for (let y = y0; y < y1; y++) {
        const from = (y - y0) * rowBytes;
        part.copy(out, ((top + y) * f.width + left + x0) * channels, from, from + rowBytes);
      }
    }
    ctx.resize = rw === image.width && rh === image.height ? null : { from: [image.width, image.height], to: [rw, rh] };
    ctx.image = undefined;
    backend.release?.(image);
    ctx.framed = { width: f.width, height: f.height, data: out, channels, alpha: image.alpha };
  },
};

/**
 * The backdrop (docs/asset-format.md: a vertical gradient in linear light, `top` at the shot's first
 * row and `bottom` at its last) on every row of an RGB canvas, continued linearly beyond the shot and
 * clamped to 0..1. `shotRow(y)` is the full-size row (continuous, 0 at the first row's centre) that
 * output row `y` shows.
 */
function fillBackdrop(
  out: Buffer,
  width: number,
  height: number,
  backdrop: { top: readonly number[]; bottom: readonly number[] },
  shotHeight: number,
  shotRow: (y: number) => number,
): void {
  const pixel = Buffer.alloc(3);
  for (let y = 0; y < height; y++) {
    const t = shotHeight > 1 ? shotRow(y) / (shotHeight - 1) : 0;
    for (let c = 0; c < 3; c++) {
      const v = backdrop.top[c]! + (backdrop.bottom[c]! - backdrop.top[c]!) * t;
      pixel[c] = Math.round(255 * linearToSrgb(Math.min(1, Math.max(0, v))));
    }
    out.fill(pixel, y * width * 3, (y + 1) * width * 3);
  }
}
