import sharp from 'sharp';

/** A decoded picture's box of pixels with any alpha, as edges: [x0, y0, x1, y1) (a layout is checked against it). */
export async function alphaEdges(bytes: Buffer): Promise<{ width: number; height: number; edges: [number, number, number, number] }> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[(y * info.width + x) * 4 + 3]! === 0) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x + 1);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y + 1);
    }
  }
  return { width: info.width, height: info.height, edges: [x0, y0, x1, y1] };
}
