import sharp from 'sharp';
import { outputHeight } from '../../../renderer/assets/asset-store.ts';
import { encodeImage } from '../../../renderer/encode/encode.ts';
import type { RenderContext } from '../../../renderer/pipeline/context.ts';
import { runPipeline, STEPS } from '../../../renderer/pipeline/pipeline.ts';
import type { RendererInternals } from '../../../renderer/server.ts';
import type { ImageFormat } from '../../../shared/render-options.ts';
import type { ViewId } from '../../../shared/views.ts';
import type { ViewMeta } from '../../../shared/asset-format/read-set.ts';

type ShotSetOf = Awaited<ReturnType<RendererInternals['store']['getSet']>>;

/**
 * The floor a render miss is held to: the finished output picture of `req` (composited, then resized
 * to its exact size), encoded alone with the service's encoder settings. `encode()` does it once.
 */
export async function encodeFloor(
  it: RendererInternals,
  set: ShotSetOf,
  view: ViewMeta,
  req: { assetSet: string; view: string; color: string; shadow: boolean; plate: string; format: ImageFormat; width: number },
): Promise<{ encode: () => Promise<unknown> }> {
  const ctx: RenderContext = { req: { ...req, view: req.view as ViewId }, set, view, deadline: { at: Infinity }, timings: {} };
  await runPipeline(ctx, { store: it.store, backend: it.backend }, STEPS.slice(0, 3));
  const img = ctx.image!;
  const h = outputHeight(view, req.width);
  const finished = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: img.channels } })
    .removeAlpha()
    .resize(req.width, h, { kernel: 'lanczos3', fit: 'fill' })
    .raw()
    .toBuffer();
  it.backend.release?.(img); // the layers' own output picture goes back for the misses
  const output = { width: req.width, height: h, data: new Uint8Array(finished.buffer, finished.byteOffset, finished.byteLength), channels: 3 as const, alpha: false };
  await encodeImage(output, req.format);
  return { encode: () => encodeImage(output, req.format) };
}
