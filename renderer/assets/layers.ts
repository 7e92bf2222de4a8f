import sharp from 'sharp';

/**
 * The decoded layers of one view at one size, in SharedArrayBuffers so the cpu workers read them
 * without copies. base: RGB 8-bit sRGB; paint, shadow: 8-bit; diffuse, specular: 16-bit linear.
 */
export interface Layers {
  key: string;
  width: number;
  height: number;
  base: Uint8Array;
  paint: Uint8Array;
  diffuse: Uint16Array;
  specular: Uint16Array;
  shadow: Uint8Array | null;
  bytes: number;
}

export function sharedU8(n: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(n));
}

export function sharedU16(n: number): Uint16Array {
  return new Uint16Array(new SharedArrayBuffer(n * 2));
}

function toShared8(buf: Buffer): Uint8Array {
  const out = sharedU8(buf.length);
  out.set(buf);
  return out;
}

function toShared16(buf: Buffer): Uint16Array {
  const out = sharedU16(buf.length / 2);
  out.set(new Uint16Array(buf.buffer, buf.byteOffset, buf.length / 2));
  return out;
}

function layerBytes(l: Omit<Layers, 'bytes' | 'key'>): number {
  return (
    l.base.byteLength + l.paint.byteLength + l.diffuse.byteLength + l.specular.byteLength + (l.shadow?.byteLength ?? 0)
  );
}

export function makeLayers(key: string, l: Omit<Layers, 'bytes' | 'key'>): Layers {
  return { ...l, key, bytes: layerBytes(l) };
}

/** Decodes a view's files once, at full size. */
export async function decodeLayerFiles(
  key: string,
  files: { base: string; paint: string; diffuse: string; specular: string; shadow: string | null },
  lightDepth: { diffuse: 8 | 16; specular: 8 | 16 },
  width: number,
  height: number,
): Promise<Layers> {
  const rgb = (f: string) => sharp(f).removeAlpha().toColourspace('srgb').raw().toBuffer();
  const grey8 = (f: string) => sharp(f).toColourspace('b-w').raw().toBuffer();
  const grey16 = async (f: string, depth: 8 | 16) => {
    if (depth === 16) return toShared16(await sharp(f).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer());
    const b8 = await grey8(f);
    const out = sharedU16(b8.length);
    for (let i = 0; i < b8.length; i++) out[i] = b8[i]! * 257;
    return out;
  };
  const [base, paint, diffuse, specular, shadow] = await Promise.all([
    rgb(files.base).then(toShared8),
    grey8(files.paint).then(toShared8),
    grey16(files.diffuse, lightDepth.diffuse),
    grey16(files.specular, lightDepth.specular),
    files.shadow ? grey8(files.shadow).then(toShared8) : Promise.resolve(null),
  ]);
  const px = width * height;
  if (base.length !== px * 3 || paint.length !== px || diffuse.length !== px || specular.length !== px) {
    throw new Error(`${key}: decoded layer sizes do not match ${width}x${height}`);
  }
  return makeLayers(key, { width, height, base, paint, diffuse, specular, shadow });
}

async function resize8(src: Uint8Array, w: number, h: number, channels: 1 | 3, W: number, H: number) {
  let img = sharp(Buffer.from(src.buffer, src.byteOffset, src.byteLength), {
    raw: { width: w, height: h, channels },
  });
  img = channels === 1 ? img.toColourspace('b-w') : img.toColourspace('srgb');
  const buf = await img
    .resize(W, H, { kernel: 'lanczos3', fit: 'fill' })
    .raw()
    .toBuffer();
  return toShared8(buf);
}

async function resize16(src: Uint16Array, w: number, h: number, W: number, H: number) {
  // A Uint16Array input is read as 16-bit ('ushort') by sharp.
  const copy = new Uint16Array(src.length);
  copy.set(src);
  const buf = await sharp(copy, { raw: { width: w, height: h, channels: 1 } })
    .toColourspace('grey16') // without it sharp narrows to 8 bits (and 3 bands) on output
    .resize(W, H, { kernel: 'lanczos3', fit: 'fill' })
    .raw({ depth: 'ushort' })
    .toBuffer();
  return toShared16(buf);
}

/** Lanczos-3 resample of every layer to W×H (used for the pre-scaled levels and the per-width layers). */
export async function resampleLayers(key: string, src: Layers, W: number, H: number): Promise<Layers> {
  const { width: w, height: h } = src;
  const [base, paint, diffuse, specular, shadow] = await Promise.all([
    resize8(src.base, w, h, 3, W, H),
    resize8(src.paint, w, h, 1, W, H),
    resize16(src.diffuse, w, h, W, H),
    resize16(src.specular, w, h, W, H),
    src.shadow ? resize8(src.shadow, w, h, 1, W, H) : Promise.resolve(null),
  ]);
  const px = W * H;
  if (base.length !== px * 3 || paint.length !== px || diffuse.length !== px || specular.length !== px || (shadow && shadow.length !== px)) {
    throw new Error(`${key}: resampled layer sizes do not match ${W}x${H}`);
  }
  return makeLayers(key, { width: W, height: H, base, paint, diffuse, specular, shadow });
}
