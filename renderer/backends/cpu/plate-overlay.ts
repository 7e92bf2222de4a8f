import { encodeSrgb8 } from '../../color/srgb8.ts';
import { plateLight, plateTexel, samplePlate, type KernelInput, type PlateOverlay } from './kernel.ts';

type KernelPlate = Omit<NonNullable<KernelInput['plate']>, 'overlay'>;

/**
 * Overlays made, by plate raster (its data) and then by the level's base plane: both weakly, so an
 * overlay lives no longer than its plate raster (plate-raster.ts's LRU) and its layers (the asset
 * cache). Each pair normally has one placement; the key tells placements apart anyway.
 */
const made = new WeakMap<Float32Array, WeakMap<Uint8Array, Map<string, PlateOverlay>>>();

/**
 * The plate over an opaque level (kernel.ts PlateOverlay), made on first use and kept. A customer
 * trying colours with one plate text renders the same plate over the same level again and again: the
 * plate's sampling (a homography and a bilinear lookup per pixel of its box, about 1 ms of a 2400 px
 * composite) is then done once, and the solid plate's bytes are written without any arithmetic.
 */
export function plateOverlay(base: Uint8Array, width: number, plate: KernelPlate): PlateOverlay {
  const key = `${plate.tw}x${plate.th}|${plate.hinv.join(',')}|${plate.bbox.join(',')}`;
  let byBase = made.get(plate.data);
  if (!byBase) made.set(plate.data, (byBase = new WeakMap()));
  let byKey = byBase.get(base);
  if (!byKey) byBase.set(base, (byKey = new Map()));
  let ov = byKey.get(key);
  if (!ov) byKey.set(key, (ov = buildOverlay(base, width, plate)));
  return ov;
}

function buildOverlay(base: Uint8Array, width: number, plate: KernelPlate): PlateOverlay {
  const [x0, y0, x1, y1] = plate.bbox;
  const rows = Math.max(0, y1 - y0);
  const solidStart = new Int32Array(new SharedArrayBuffer((rows + 1) * 4));
  const edgeStart = new Int32Array(new SharedArrayBuffer((rows + 1) * 4));
  const solid: number[] = [];
  const solidRgb: number[] = [];
  const edge: number[] = [];
  const edgeA: number[] = [];
  const edgeLit: number[] = [];
  const p = { ...plate, overlay: null };
  for (let r = 0; r < rows; r++) {
    const y = y0 + r;
    for (let x = x0; x < x1; x++) {
      if (!samplePlate(p, x, y)) continue;
      const i = y * width + x;
      const light = plateLight(base, i);
      const a = plateTexel[3]!;
      const lr = plateTexel[0]! * light;
      const lg = plateTexel[1]! * light;
      const lb = plateTexel[2]! * light;
      if (a === 1) {
        // px · (1 − 1) + lit is lit whatever the paint under it: the bytes are known now
        solid.push(i);
        solidRgb.push(encodeSrgb8(lr), encodeSrgb8(lg), encodeSrgb8(lb));
      } else {
        edge.push(i);
        edgeA.push(a);
        edgeLit.push(lr, lg, lb);
      }
    }
    solidStart[r + 1] = solid.length;
    edgeStart[r + 1] = edge.length;
  }
  const shared = <T extends Int32Array | Uint8Array | Float64Array>(Kind: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, xs: number[]): T => {
    const t = new Kind(new SharedArrayBuffer(Math.max(1, xs.length) * Kind.BYTES_PER_ELEMENT));
    t.set(xs);
    return t;
  };
  return {
    y0,
    rows,
    solidStart,
    solidIdx: shared(Int32Array, solid),
    solidRgb: shared(Uint8Array, solidRgb),
    edgeStart,
    edgeIdx: shared(Int32Array, edge),
    edgeA: shared(Float64Array, edgeA),
    edgeLit: shared(Float64Array, edgeLit),
  };
}
