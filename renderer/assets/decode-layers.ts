import { readGreyLayer, readLightCodes, readRgbLayer } from '../../shared/asset-format/layer-files.ts';
import { LIGHT8_TO_LINEAR } from '../../shared/asset-format/light-encoding.ts';
import { copySliced, layersOf, lookUpRange, SLICE_PIXELS, type Layers } from './layers.ts';
import type { LevelExtras } from './level-extras.ts';
import { runPaced, type Sliced } from './paced.ts';

export interface LayerFiles {
  base: string;
  paint: string;
  diffuse: string;
  specular: string;
  shadow: string | null;
  coverage: string | null;
}

/** Decodes a view's files once, at full size, into planes from `extras` (and with what they add). */
export async function decodeLayerFiles(
  key: string,
  files: LayerFiles,
  lightDepth: { diffuse: 8 | 16; specular: 8 | 16 },
  width: number,
  height: number,
  extras: LevelExtras,
): Promise<Layers> {
  const [b, p, d, s, sh, cv] = await Promise.all([
    readRgbLayer(files.base),
    readGreyLayer(files.paint),
    readLightCodes(files.diffuse, lightDepth.diffuse),
    readLightCodes(files.specular, lightDepth.specular),
    files.shadow ? readGreyLayer(files.shadow) : Promise.resolve(null),
    files.coverage ? readGreyLayer(files.coverage) : Promise.resolve(null),
  ]);
  const px = width * height;
  if (
    b.length !== px * 3 ||
    p.length !== px ||
    d.codes.length !== px ||
    s.codes.length !== px ||
    (sh && sh.length !== px) ||
    (cv && cv.length !== px)
  ) {
    throw new Error(`${key}: decoded layer sizes do not match ${width}x${height}`);
  }
  const planes = extras.allocatePlanes(key, width, height, { shadow: sh !== null, coverage: cv !== null });
  const { base, paint, diffuse, specular, shadow, coverage } = planes;
  // paced (paced.ts): the renderer decodes on its main thread, which serves gRPC meanwhile
  return runPaced(
    (function* (): Sliced<Layers> {
      yield* copySliced(base, b);
      yield* copySliced(paint, p);
      if (shadow && sh) yield* copySliced(shadow, sh);
      if (coverage && cv) yield* copySliced(coverage, cv);
      const lut = new Uint16Array(256);
      for (let i = 0; i < 256; i++) lut[i] = Math.round(LIGHT8_TO_LINEAR[i]! * 65535);
      for (const [l, out] of [[d, diffuse], [s, specular]] as const) {
        if (l.depth === 16) yield* copySliced(out, l.codes);
        else
          for (let i = 0; i < px; i += SLICE_PIXELS) {
            lookUpRange(out, l.codes, lut, i, Math.min(px, i + SLICE_PIXELS));
            yield;
          }
      }
      return yield* layersOf(key, { ...planes, width, height }, extras);
    })(),
  );
}
