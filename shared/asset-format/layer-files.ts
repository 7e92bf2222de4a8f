import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { LIGHT8_TO_LINEAR } from './light-encoding.ts';

/**
 * The layer files of a view (docs/asset-format.md): `<set>/<view>/<layer>.png`, base 8-bit RGB, the
 * masks 8-bit grey, the light layers (diffuse, specular) 16-bit linear or 8-bit through the sRGB
 * curve (light-encoding.ts). Writers and readers of pixels go through here.
 */
export const LAYER_FILES = ['base', 'paint', 'diffuse', 'specular', 'shadow', 'coverage'] as const;
export type LayerName = (typeof LAYER_FILES)[number];
export type LightDepth = 8 | 16;

export function layerPath(dir: string, view: string, layer: LayerName): string {
  return path.join(dir, view, `${layer}.png`);
}

/** Every writer's PNG settings: the smallest files, since committed sets count against the repository. */
export const LAYER_PNG = { compressionLevel: 9, adaptiveFiltering: true } as const;

const bytes = (d: Uint8Array | Uint16Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength);

export async function writeRgbLayer(file: string, data: Uint8Array, width: number, height: number): Promise<void> {
  await sharp(bytes(data), { raw: { width, height, channels: 3 } }).png(LAYER_PNG).toFile(file);
}

export async function writeGreyLayer(file: string, data: Uint8Array, width: number, height: number): Promise<void> {
  await sharp(bytes(data), { raw: { width, height, channels: 1 } }).toColourspace('b-w').png(LAYER_PNG).toFile(file);
}

/** A light layer's stored codes: Uint16Array for 16 bits (linear), Uint8Array for 8 (sRGB curve). */
export async function writeLightLayer(file: string, codes: Uint8Array | Uint16Array, width: number, height: number): Promise<void> {
  if (codes instanceof Uint16Array) {
    await sharp(codes, { raw: { width, height, channels: 1 } }).toColourspace('grey16').png(LAYER_PNG).toFile(file);
  } else {
    await writeGreyLayer(file, codes, width, height);
  }
}

export function readRgbLayer(file: string): Promise<Buffer> {
  return sharp(file).removeAlpha().toColourspace('srgb').raw().toBuffer();
}

export function readGreyLayer(file: string): Promise<Buffer> {
  return sharp(file).toColourspace('b-w').raw().toBuffer();
}

/** A light layer's stored codes, as on disk. */
export async function readLightCodes(file: string, depth: LightDepth): Promise<{ depth: 8; codes: Buffer } | { depth: 16; codes: Uint16Array }> {
  if (depth === 8) return { depth, codes: await readGreyLayer(file) };
  const b = await sharp(file).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer();
  return { depth, codes: new Uint16Array(b.buffer, b.byteOffset, b.length / 2) };
}

/** A light layer as linear light, 0..1. */
export async function readLightLayer(file: string, depth: LightDepth): Promise<Float32Array> {
  const l = await readLightCodes(file, depth);
  return l.depth === 16 ? Float32Array.from(l.codes, (v) => v / 65535) : Float32Array.from(l.codes, (v) => LIGHT8_TO_LINEAR[v]!);
}

/** One shot's layers as stored (a view of a set, or a spin frame), rows top to bottom. */
export interface ShotLayers {
  width: number;
  height: number;
  /** sRGB 8-bit RGB over the backdrop. */
  base: Uint8Array;
  paint: Uint8Array;
  coverage: Uint8Array;
  /** Uint16Array: 16-bit linear; Uint8Array: 8-bit through the sRGB curve (light-encoding.ts). */
  diffuse: Uint8Array | Uint16Array;
  specular: Uint8Array | Uint16Array;
  /** null: the shot has no floor shadow (top_down). */
  shadow: Uint8Array | null;
}

/** Writes a shot's layer files into `<dir>/<shotId>/` (made if needed); answers their bytes on disk. */
export async function writeShotLayers(dir: string, shotId: string, layers: ShotLayers): Promise<number> {
  const { width: W, height: H } = layers;
  const shotDir = path.join(dir, shotId);
  await fs.mkdir(shotDir, { recursive: true });
  await writeRgbLayer(layerPath(dir, shotId, 'base'), layers.base, W, H);
  await writeGreyLayer(layerPath(dir, shotId, 'paint'), layers.paint, W, H);
  await writeGreyLayer(layerPath(dir, shotId, 'coverage'), layers.coverage, W, H);
  await writeLightLayer(layerPath(dir, shotId, 'diffuse'), layers.diffuse, W, H);
  await writeLightLayer(layerPath(dir, shotId, 'specular'), layers.specular, W, H);
  if (layers.shadow) await writeGreyLayer(layerPath(dir, shotId, 'shadow'), layers.shadow, W, H);
  let bytes = 0;
  for (const f of await fs.readdir(shotDir)) bytes += (await fs.stat(path.join(shotDir, f))).size;
  return bytes;
}
