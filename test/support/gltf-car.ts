/**
 * Small glTF 2.0 cars built in the tests (glTF-Transform's Document API), so that the glTF baker's
 * tests need no model files: a box body in a paint material, a glass cabin, four tyres, lamps and two
 * plates. Variants: Y-up metres (plain), the same Draco-compressed, and Z-up in centimetres with the
 * nose towards -X (an automotive CAD frame).
 */
import fs from 'node:fs/promises';
import { Document, Logger, NodeIO, type Material, type Mesh } from '@gltf-transform/core';
import {
  ALL_EXTENSIONS, EXTTextureWebP, KHRDracoMeshCompression, KHRMaterialsClearcoat, KHRMaterialsTransmission, KHRTextureTransform,
} from '@gltf-transform/extensions';
import { meshopt, quantize } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { MeshoptEncoder } from 'meshoptimizer';
import sharp from 'sharp';

/** The car in the studio frame (metres, +X nose, +Y up, +Z right, floor y = 0). */
export const CAR = {
  body: { min: [-2.1, 0.3, -0.9], max: [2.1, 0.95, 0.9] },
  // the cabin sinks 1 cm into the body: no coplanar faces to fight over depth
  glass: { min: [-1.0, 0.94, -0.75], max: [0.8, 1.4, 0.75] },
  wheelX: 1.35,
  wheelZ: 0.8,
  wheelR: 0.33,
  tyreW: 0.22,
  /** Plate faces (thin boxes 4 mm deep on the nose and the tail), 520 x 110 mm. */
  plateFront: { min: [2.1, 0.45, -0.26], max: [2.104, 0.56, 0.26] },
  plateRear: { min: [-2.104, 0.45, -0.26], max: [-2.1, 0.56, 0.26] },
} as const;

type V3 = [number, number, number];
interface Geo { pos: number[]; nrm: number[]; idx: number[] }

function box(min: readonly number[], max: readonly number[]): Geo {
  const g: Geo = { pos: [], nrm: [], idx: [] };
  const [x0, y0, z0] = min as V3, [x1, y1, z1] = max as V3;
  const faces: Array<{ n: V3; c: V3[] }> = [
    { n: [1, 0, 0], c: [[x1, y0, z1], [x1, y0, z0], [x1, y1, z0], [x1, y1, z1]] },
    { n: [-1, 0, 0], c: [[x0, y0, z0], [x0, y0, z1], [x0, y1, z1], [x0, y1, z0]] },
    { n: [0, 1, 0], c: [[x0, y1, z1], [x1, y1, z1], [x1, y1, z0], [x0, y1, z0]] },
    { n: [0, -1, 0], c: [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]] },
    { n: [0, 0, 1], c: [[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] },
    { n: [0, 0, -1], c: [[x1, y0, z0], [x0, y0, z0], [x0, y1, z0], [x1, y1, z0]] },
  ];
  for (const f of faces) {
    const b = g.pos.length / 3;
    for (const c of f.c) { g.pos.push(...c); g.nrm.push(...f.n); }
    g.idx.push(b, b + 1, b + 2, b, b + 2, b + 3);
  }
  return g;
}

/** A tyre: a closed cylinder along Z. */
function tyre(cx: number, cy: number, cz: number, r: number, w: number, seg = 32): Geo {
  const g: Geo = { pos: [], nrm: [], idx: [] };
  for (let i = 0; i <= seg; i++) {
    const a = (i / seg) * Math.PI * 2;
    const x = Math.cos(a), y = Math.sin(a);
    g.pos.push(cx + r * x, cy + r * y, cz - w / 2, cx + r * x, cy + r * y, cz + w / 2);
    g.nrm.push(x, y, 0, x, y, 0);
  }
  for (let i = 0; i < seg; i++) {
    const a = 2 * i, b = 2 * i + 1, c = 2 * i + 2, d = 2 * i + 3;
    g.idx.push(a, c, b, b, c, d);
  }
  for (const side of [-1, 1]) {
    const base = g.pos.length / 3;
    g.pos.push(cx, cy, cz + (side * w) / 2);
    g.nrm.push(0, 0, side);
    for (let i = 0; i <= seg; i++) {
      const a = (i / seg) * Math.PI * 2;
      g.pos.push(cx + r * Math.cos(a), cy + r * Math.sin(a), cz + (side * w) / 2);
      g.nrm.push(0, 0, side);
    }
    for (let i = 0; i < seg; i++) {
      if (side > 0) g.idx.push(base, base + 1 + i, base + 2 + i);
      else g.idx.push(base, base + 2 + i, base + 1 + i);
    }
  }
  return g;
}

export interface FixtureOptions {
  /** 'y-up-m': glTF's frame; 'z-up-cm': Z up, nose -X, right +Y, centimetres. */
  frame?: 'y-up-m' | 'z-up-cm';
  draco?: boolean;
  /** EXT_meshopt_compression (with KHR_mesh_quantization). */
  meshopt?: boolean;
  /** KHR_mesh_quantization only. */
  quantize?: boolean;
  /**
   * Textured and extended materials: a grille with a PNG base colour under KHR_texture_transform, a
   * badge (`logo`) with a WebP texture, a chrome trim with a JPEG texture and KHR_materials_clearcoat,
   * and KHR_materials_transmission on the headlight lenses.
   */
  textures?: boolean;
  /** Leave out the paint (for the "no paint" failure). */
  noPaint?: boolean;
  /** A black trim panel 3 cm in front of the front plate, hiding it. */
  coverFrontPlate?: boolean;
}

/** A small image: 8 x 4 px, left half red, right half blue (so orientation and decoding can be checked). */
export async function fixtureImage(format: 'png' | 'jpeg' | 'webp'): Promise<Uint8Array> {
  const raw = Buffer.alloc(8 * 4 * 3);
  for (let y = 0; y < 4; y++) {
    for (let x = 0; x < 8; x++) {
      const k = (y * 8 + x) * 3;
      if (x < 4) raw[k] = 255;
      else raw[k + 2] = 255;
    }
  }
  const img = sharp(raw, { raw: { width: 8, height: 4, channels: 3 } });
  const out = format === 'png' ? img.png() : format === 'jpeg' ? img.jpeg({ quality: 95 }) : img.webp({ lossless: true });
  return new Uint8Array(await out.toBuffer());
}

/** Builds the test car; `.glb` files are one binary, `.gltf` files get an external .bin and image files. */
export async function writeFixtureCar(file: string, opts: FixtureOptions = {}): Promise<void> {
  const frame = opts.frame ?? 'y-up-m';
  const conv = (p: V3): V3 => (frame === 'z-up-cm' ? [-p[0] * 100, p[2] * 100, p[1] * 100] : p);
  const convN = (n: V3): V3 => (frame === 'z-up-cm' ? [-n[0], n[2], n[1]] : n);
  const doc = new Document().setLogger(new Logger(Logger.Verbosity.WARN));
  const buffer = doc.createBuffer();
  const scene = doc.createScene('car');
  const mat = (name: string, rgba: [number, number, number, number], o: { metal?: number; rough?: number; blend?: boolean; emissive?: V3 } = {}): Material => {
    const m = doc.createMaterial(name).setBaseColorFactor(rgba).setMetallicFactor(o.metal ?? 0).setRoughnessFactor(o.rough ?? 0.5);
    if (o.blend) m.setAlphaMode('BLEND');
    if (o.emissive) m.setEmissiveFactor(o.emissive);
    return m;
  };
  const meshOf = (name: string, g: Geo, m: Material): Mesh => {
    const pos: number[] = [], nrm: number[] = [];
    for (let i = 0; i < g.pos.length; i += 3) {
      pos.push(...conv([g.pos[i]!, g.pos[i + 1]!, g.pos[i + 2]!]));
      nrm.push(...convN([g.nrm[i]!, g.nrm[i + 1]!, g.nrm[i + 2]!]));
    }
    const prim = doc.createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array(pos)).setBuffer(buffer))
      .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(new Float32Array(nrm)).setBuffer(buffer))
      .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint32Array(g.idx)).setBuffer(buffer))
      .setMaterial(m);
    return doc.createMesh(name).addPrimitive(prim);
  };
  const add = (name: string, g: Geo, m: Material) => scene.addChild(doc.createNode(name).setMesh(meshOf(name, g, m)));

  const paint = mat(opts.noPaint ? 'Grey' : 'Body_Paint', [0.5, 0.05, 0.05, 1], { rough: 0.3 });
  add(opts.noPaint ? 'Shell' : 'Body', box(CAR.body.min, CAR.body.max), paint);
  add('Cabin_Glass', box(CAR.glass.min, CAR.glass.max), mat('Window_Glass', [0.1, 0.12, 0.14, 0.3], { blend: true, rough: 0.05 }));
  const rubber = mat('Tyre_Rubber', [0.03, 0.03, 0.03, 1], { rough: 0.9 });
  for (const [nm, sx, sz] of [['FL', 1, -1], ['FR', 1, 1], ['RL', -1, -1], ['RR', -1, 1]] as const) {
    add(`Tyre_${nm}`, tyre(sx * CAR.wheelX, CAR.wheelR, sz * CAR.wheelZ, CAR.wheelR, CAR.tyreW), rubber);
  }
  const plate = mat('License_Plate', [0.9, 0.9, 0.9, 1]);
  add('Plate_Front', box(CAR.plateFront.min, CAR.plateFront.max), plate);
  add('Plate_Rear', box(CAR.plateRear.min, CAR.plateRear.max), plate);
  if (opts.coverFrontPlate) add('Guard_Panel', box([2.12, 0.42, -0.32], [2.15, 0.59, 0.32]), mat('Trim_Black', [0.02, 0.02, 0.02, 1]));
  const head = mat('Headlight_Lens', [0.9, 0.9, 0.9, 1], { emissive: [0.2, 0.2, 0.2] });
  const tail = mat('Taillight_Lens', [0.8, 0.02, 0.02, 1], { emissive: [0.4, 0, 0] });
  for (const sz of [-1, 1]) {
    add(sz < 0 ? 'Headlight_L' : 'Headlight_R', box([2.1, 0.7, sz * 0.75 - 0.12], [2.106, 0.8, sz * 0.75 + 0.12]), head);
    add(sz < 0 ? 'Taillight_L' : 'Taillight_R', box([-2.106, 0.7, sz * 0.75 - 0.12], [-2.1, 0.8, sz * 0.75 + 0.12]), tail);
  }
  if (opts.textures) {
    const tt = doc.createExtension(KHRTextureTransform);
    const grille = mat('Grille_Plastic', [1, 1, 1, 1]);
    const png = doc.createTexture('grille').setImage(await fixtureImage('png')).setMimeType('image/png');
    grille.setBaseColorTexture(png);
    grille.getBaseColorTextureInfo()!.setExtension('KHR_texture_transform', tt.createTransform().setOffset([0.25, 0]).setScale([0.5, 1]));
    add('Grille', box([2.1, 0.6, -0.4], [2.11, 0.68, 0.4]), grille);
    doc.createExtension(EXTTextureWebP);
    const logo = mat('logo', [1, 1, 1, 1]);
    logo.setBaseColorTexture(doc.createTexture('badge').setImage(await fixtureImage('webp')).setMimeType('image/webp'));
    add('Badge', box([2.11, 0.62, -0.05], [2.115, 0.66, 0.05]), logo);
    const cc = doc.createExtension(KHRMaterialsClearcoat);
    const chrome = mat('Chrome_Trim', [0.9, 0.9, 0.9, 1], { metal: 1, rough: 0.1 });
    chrome.setBaseColorTexture(doc.createTexture('trim').setImage(await fixtureImage('jpeg')).setMimeType('image/jpeg'));
    chrome.setExtension('KHR_materials_clearcoat', cc.createClearcoat().setClearcoatFactor(1).setClearcoatRoughnessFactor(0.05));
    add('Side_Trim', box([-1.5, 0.5, 0.9], [1.5, 0.53, 0.905]), chrome);
    const tr = doc.createExtension(KHRMaterialsTransmission);
    head.setExtension('KHR_materials_transmission', tr.createTransmission().setTransmissionFactor(0.8));
  }
  if (opts.quantize || opts.meshopt) {
    await doc.transform(opts.meshopt ? meshopt({ encoder: MeshoptEncoder, level: 'medium' }) : quantize());
  }
  // Draco's sequential method keeps the vertex order (the baker frames each view on every fifth vertex, so
  // a reordering would move the frame by a few pixels and hide what the comparison is after)
  if (opts.draco) {
    doc.createExtension(KHRDracoMeshCompression).setRequired(true).setEncoderOptions({ method: KHRDracoMeshCompression.EncoderMethod.SEQUENTIAL, quantizationBits: { POSITION: 16, NORMAL: 16 } });
  }
  const io = new NodeIO().setLogger(new Logger(Logger.Verbosity.WARN)).registerExtensions(ALL_EXTENSIONS);
  if (opts.draco) io.registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  if (opts.meshopt) {
    await MeshoptEncoder.ready;
    io.registerDependencies({ 'meshopt.encoder': MeshoptEncoder });
  }
  if (file.endsWith('.gltf')) await io.write(file, doc);
  else await fs.writeFile(file, await io.writeBinary(doc));
}
