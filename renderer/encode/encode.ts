import sharp from 'sharp';
import { CONTENT_TYPES, type ImageFormat } from '../../shared/render-options.ts';
import type { RgbImage } from '../backends/backend.ts';

/**
 * Encoder settings, chosen by measurement (docs/performance-renderer.md, "Encoder settings"):
 * the smallest effort whose bytes are within a few per cent of the best, at a quality whose
 * artefacts are not visible on the studio pictures. sharp strips all metadata by default; the
 * pixels are sRGB, which is what a browser assumes without a profile.
 */
export const ENCODER = {
  webp: { quality: 82, effort: 2, smartSubsample: false },
  png: { compressionLevel: 6, adaptiveFiltering: false, palette: false },
  jpeg: { quality: 86, mozjpeg: false, chromaSubsampling: '4:2:0', progressive: false },
} as const;

/** Changes whenever the settings above (or the compositing) change, so ETags change with the bytes. */
export const ENCODER_TAG = 'enc8'; // enc8: the resize kernel (a tent on a reduction, not Lanczos-3: no ringing)

/**
 * The kernel of the one resize. A reduction (the only case for a set whose full size is at least the
 * widest output: from the next larger level, by at most 1.5) uses the tent, which libvips stretches over
 * the reduction: no negative lobes, so no light halo round a dark car on the backdrop and no alpha specks
 * outside a transparent car, where Lanczos-3 overshot by up to 20–26 codes; it is within 0.8–1.6 dB (PSNR)
 * of Lanczos-3 against an area average in linear light of the full-size render, and cheaper
 * (docs/renderer.md, "The resize"). An enlargement (a set baked smaller than the request) uses
 * Mitchell–Netravali, made for enlarging: its small negative lobes overshoot a few codes at most.
 */
export function resizeKernel(fromWidth: number, toWidth: number): 'linear' | 'mitchell' {
  // by the widths: a level of the output's width may still differ from it by a row (the two round
  // their heights apart), which is no enlargement to speak of
  return toWidth > fromWidth ? 'mitchell' : 'linear';
}

export interface Encoded {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/**
 * Encodes the composited picture, resized first to `size` when it differs (`resizeKernel` on the
 * finished picture, alpha premultiplied by sharp while it resizes): the one resize of a render.
 */
export async function encodeImage(img: RgbImage, format: ImageFormat, size?: { width: number; height: number }): Promise<Encoded> {
  const input = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  let s = sharp(input, { raw: { width: img.width, height: img.height, channels: img.channels } });
  if (img.channels === 4 && !img.alpha) s = s.removeAlpha();
  const width = size?.width ?? img.width;
  const height = size?.height ?? img.height;
  if (width !== img.width || height !== img.height) s = s.resize(width, height, { kernel: resizeKernel(img.width, width), fit: 'fill' });
  if (format === 'webp') s = s.webp(ENCODER.webp);
  else if (format === 'png') s = s.png(ENCODER.png);
  else s = s.jpeg(ENCODER.jpeg);
  const bytes = await s.toBuffer();
  return { bytes, contentType: CONTENT_TYPES[format], width, height };
}
