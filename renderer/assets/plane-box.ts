/** [x0, y0, x1, y1): a box of pixels, as pixel edges. */
export type PixelBox = [number, number, number, number];

/**
 * The bounding box of an 8-bit plane's non-zero bytes, or null when all are zero: the painted pixels
 * a colour reaches (the gl backend), the vehicle's coverage (framing and layout).
 */
export function nonZeroBox(plane: Uint8Array, width: number, height: number): PixelBox | null {
  let x0 = width;
  let x1 = -1;
  let y0 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let first = -1;
    for (let x = 0; x < width; x++) {
      if (plane[row + x] !== 0) {
        first = x;
        break;
      }
    }
    if (first < 0) continue;
    let last = first;
    for (let x = width - 1; x > first; x--) {
      if (plane[row + x] !== 0) {
        last = x;
        break;
      }
    }
    if (y0 < 0) y0 = y;
    y1 = y;
    if (first < x0) x0 = first;
    if (last > x1) x1 = last;
  }
  return y0 < 0 ? null : [x0, y0, x1 + 1, y1 + 1];
}
