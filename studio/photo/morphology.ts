// Morphology: separable flat min/max filters, van Herk / Gil-Werman (three comparisons a sample,
// whatever the window).

/**
 * Running min (or max) over a window of 2r+1 samples of the `len` samples src[off + i·stride],
 * written to dst at the same places. Samples beyond the ends count as the operation's identity
 * (+∞ for min, −∞ for max): the window is clipped to the line. g and h are scratch, at least
 * len + 2r + 2r + 1 long.
 */
function runningExtreme(
  src: Float32Array,
  dst: Float32Array,
  off: number,
  stride: number,
  len: number,
  r: number,
  max: boolean,
  g: Float32Array,
  h: Float32Array,
): void {
  const k = 2 * r + 1;
  const id = max ? -Infinity : Infinity;
  const L = Math.ceil((len + 2 * r) / k) * k;
  // g holds the padded line first; h is built from it, then g is turned into its block prefixes
  for (let j = 0; j < L; j++) {
    const i = j - r;
    g[j] = i >= 0 && i < len ? src[off + i * stride]! : id;
  }
  if (max) {
    for (let j = L - 1; j >= 0; j--) h[j] = j % k === k - 1 ? g[j]! : Math.max(h[j + 1]!, g[j]!);
    for (let j = 0; j < L; j++) if (j % k !== 0) g[j] = Math.max(g[j - 1]!, g[j]!);
    for (let i = 0; i < len; i++) dst[off + i * stride] = Math.max(h[i]!, g[i + k - 1]!);
  } else {
    for (let j = L - 1; j >= 0; j--) h[j] = j % k === k - 1 ? g[j]! : Math.min(h[j + 1]!, g[j]!);
    for (let j = 0; j < L; j++) if (j % k !== 0) g[j] = Math.min(g[j - 1]!, g[j]!);
    for (let i = 0; i < len; i++) dst[off + i * stride] = Math.min(h[i]!, g[i + k - 1]!);
  }
}

/** Flat erosion (min) or dilation (max) with a (2r+1)² square, separable, in place on `img`. */
export function squareFilter(img: Float32Array, width: number, height: number, r: number, max: boolean): void {
  const n = Math.max(width, height) + 4 * r + 2;
  const g = new Float32Array(n);
  const h = new Float32Array(n);
  const line = new Float32Array(Math.max(width, height));
  for (let y = 0; y < height; y++) runningExtreme(img, img, y * width, 1, width, r, max, g, h);
  // columns: copy out to a contiguous line (cache friendlier than striding through the image)
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) line[y] = img[y * width + x]!;
    runningExtreme(line, line, 0, 1, height, r, max, g, h);
    for (let y = 0; y < height; y++) img[y * width + x] = line[y]!;
  }
}

/**
 * The opening of `y` restricted to `domain` (1 = take part): the largest function under y made of
 * (2r+1)² squares centred on domain pixels, each clipped to the domain. Anti-extensive on the domain
 * (opening ≤ y there); −∞ where no domain square reaches.
 */
export function domainOpening(y: Float32Array, domain: Uint8Array, width: number, height: number, r: number): Float32Array {
  const n = width * height;
  const e = new Float32Array(n);
  for (let i = 0; i < n; i++) e[i] = domain[i] ? y[i]! : Infinity;
  squareFilter(e, width, height, r, false);
  // only squares centred on the domain: a square centred beside the paint could sit on a thin bright
  // rim (a highlight along the silhouette) and keep it out of S
  for (let i = 0; i < n; i++) if (!domain[i]) e[i] = -Infinity;
  squareFilter(e, width, height, r, true);
  return e;
}

/**
 * Box mean of `v` over the (2r+1)² square, counting only pixels with weight w (0 or 1): a normalised
 * convolution, separable running sums. Where no weighted pixel is in reach the value stays.
 */
export function maskedBoxMean(v: Float32Array, w: Float32Array, width: number, height: number, r: number): Float32Array {
  const n = width * height;
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = w[i]! ? v[i]! : 0;
    b[i] = w[i]!;
  }
  const tmp = new Float64Array(width);
  for (const arr of [a, b]) {
    // rows: a running sum along each row
    for (let y = 0; y < height; y++) {
      const off = y * width;
      let acc = 0;
      for (let x = 0; x < Math.min(r, width); x++) acc += arr[off + x]!;
      for (let x = 0; x < width; x++) {
        if (x + r < width) acc += arr[off + x + r]!;
        if (x - r - 1 >= 0) acc -= arr[off + x - r - 1]!;
        tmp[x] = acc;
      }
      arr.set(tmp, off);
    }
    // columns: a running sum of whole rows, row by row (cache friendly)
    const col = new Float64Array(n);
    const acc = new Float64Array(width);
    for (let y = 0; y < Math.min(r, height); y++) for (let x = 0; x < width; x++) acc[x]! += arr[y * width + x]!;
    for (let y = 0; y < height; y++) {
      const add = y + r;
      const drop = y - r - 1;
      if (add < height) for (let x = 0, o = add * width; x < width; x++) acc[x]! += arr[o + x]!;
      if (drop >= 0) for (let x = 0, o = drop * width; x < width; x++) acc[x]! -= arr[o + x]!;
      col.set(acc, y * width);
    }
    arr.set(col);
  }
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = b[i]! > 1e-6 ? a[i]! / b[i]! : v[i]!;
  return out;
}
