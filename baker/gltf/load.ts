/**
 * Reads a glTF 2.0 file (GLB, or .gltf with external or embedded buffers and images) without a DOM:
 * glTF-Transform reads it and decodes the compression extensions (KHR_draco_mesh_compression with
 * draco3dgltf, EXT_meshopt_compression with meshoptimizer), writes a plain GLB in memory, and three's
 * GLTFLoader builds the scene from that (materials with KHR_materials_clearcoat/transmission,
 * KHR_texture_transform, KHR_mesh_quantization, ...). Images are decoded with sharp into
 * THREE.DataTexture instead of the browser's image decoders.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Logger, NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { uninstance } from '@gltf-transform/functions';
import sharp from 'sharp';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';

/** A problem with the input file, reported to the operator as one line. */
export class GltfInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GltfInputError';
  }
}

let ioPromise: Promise<NodeIO> | null = null;

/** One NodeIO with every extension glTF-Transform knows and the Draco/meshopt decoders. */
async function nodeIO(): Promise<NodeIO> {
  ioPromise ??= (async () => {
    const [{ default: draco3d }, { MeshoptDecoder }] = await Promise.all([import('draco3dgltf'), import('meshoptimizer')]);
    await MeshoptDecoder.ready;
    return new NodeIO().setLogger(new Logger(Logger.Verbosity.ERROR)).registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'draco3d.decoder': await draco3d.createDecoderModule(),
      'meshopt.decoder': MeshoptDecoder,
    });
  })();
  return ioPromise;
}

/**
 * Checks that the file is glTF 2.0 (GLB version 2, or JSON whose asset.version is 2.x) before the
 * real read, so that other files fail with a message saying so.
 */
async function checkGltf2(file: string): Promise<void> {
  let fh;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    throw new GltfInputError(`cannot open the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await fh.read(head, 0, 12, 0);
    if (bytesRead >= 4 && head.toString('latin1', 0, 4) === 'glTF') {
      const version = bytesRead >= 8 ? head.readUInt32LE(4) : 0;
      if (version !== 2) throw new GltfInputError(`not a glTF 2.0 file (GLB container version ${version})`);
      return;
    }
    const text = (await fh.readFile()).toString('utf8');
    const start = text.replace(/^\uFEFF/, '').trimStart();
    if (!start.startsWith('{')) throw new GltfInputError('not a glTF 2.0 file (neither a GLB container nor glTF JSON)');
    let json: { asset?: { version?: unknown } };
    try {
      json = JSON.parse(start) as typeof json;
    } catch {
      throw new GltfInputError('not a glTF 2.0 file (the JSON does not parse)');
    }
    const v = json?.asset?.version;
    if (typeof v !== 'string') throw new GltfInputError('not a glTF 2.0 file (no asset.version)');
    if (!/^2\.\d+$/.test(v)) throw new GltfInputError(`not a glTF 2.0 file (asset.version is "${v}")`);
  } finally {
    await fh.close();
  }
}

/** Reads the file into a glTF-Transform document (compression decoded). */
export async function readGltfDocument(file: string): Promise<Document> {
  await checkGltf2(file);
  const io = await nodeIO();
  try {
    return await io.read(file);
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0]!;
    throw new GltfInputError(`cannot read the glTF: ${msg}`);
  }
}

/** Extensions that are only a storage detail once glTF-Transform has read the file (instances are expanded first). */
const STORAGE_EXTENSIONS = new Set(['KHR_draco_mesh_compression', 'EXT_meshopt_compression']);

/**
 * The model as one .glb at `out`: a .glb is copied as is; a .gltf (buffers and images beside it or
 * embedded) is read and written as one binary file, its compression extensions decoded (there is no
 * encoder here), so it loads again exactly as it did.
 */
export async function writeModelGlb(file: string, out: string): Promise<void> {
  await checkGltf2(file);
  const head = Buffer.alloc(4);
  const fh = await fs.open(file, 'r');
  try {
    await fh.read(head, 0, 4, 0);
  } finally {
    await fh.close();
  }
  if (head.toString('latin1') === 'glTF') {
    await fs.copyFile(file, out);
    return;
  }
  const doc = await readGltfDocument(file);
  for (const ext of doc.getRoot().listExtensionsUsed()) {
    if (STORAGE_EXTENSIONS.has(ext.extensionName)) ext.dispose();
  }
  const io = await nodeIO();
  await fs.writeFile(out, await io.writeBinary(doc));
}

/** Texture containers three cannot decode without a transcoder; their images are dropped (with a warning). */
const UNDECODABLE_IMAGES = new Set(['image/ktx2']);

export interface LoadedGltf {
  scene: THREE.Group;
  /** Original glTF names of objects and materials (three sanitises node names). */
  nodeName: Map<THREE.Object3D, string>;
  materialName: Map<THREE.Material, string>;
  /** Things the operator should know (dropped textures, ...). */
  warnings: string[];
  /** asset.extras / asset.copyright as found in the file, for the set's source note. */
  asset: { generator?: string; copyright?: string; extras?: Record<string, unknown> };
  /** Triangles in the file's meshes (all scenes' instances counted once per instance). */
  triangles: number;
}

/**
 * Loads a glTF 2.0 file into a three.js scene. Throws GltfInputError for files that are not glTF 2.0
 * or cannot be read.
 */
export async function loadGltf(file: string): Promise<LoadedGltf> {
  const doc = await readGltfDocument(file);
  const warnings: string[] = [];
  const root = doc.getRoot();
  const asset = root.getAsset() as LoadedGltf['asset'];
  // EXT_mesh_gpu_instancing: one node per instance, so every part is a plain mesh with its own matrix
  if (root.listExtensionsUsed().some((e) => e.extensionName === 'EXT_mesh_gpu_instancing')) await doc.transform(uninstance());
  for (const ext of root.listExtensionsUsed()) {
    if (STORAGE_EXTENSIONS.has(ext.extensionName)) ext.dispose();
  }
  for (const tex of root.listTextures()) {
    if (UNDECODABLE_IMAGES.has(tex.getMimeType())) {
      warnings.push(`texture "${tex.getName() || tex.getURI()}" (${tex.getMimeType()}) cannot be decoded and is left out`);
      tex.dispose();
    }
  }
  for (const ext of root.listExtensionsUsed()) {
    if (ext.extensionName === 'KHR_texture_basisu') ext.dispose();
  }
  const io = await nodeIO();
  let glb: Uint8Array;
  try {
    glb = await io.writeBinary(doc);
  } catch (e) {
    throw new GltfInputError(`cannot convert the glTF: ${(e as Error).message.split('\n')[0]}`);
  }
  const gltf = await parseGlb(glb, warnings, path.basename(file));
  const nodeName = new Map<THREE.Object3D, string>();
  const materialName = new Map<THREE.Material, string>();
  const json = gltf.parser.json as { nodes?: Array<{ name?: string }>; materials?: Array<{ name?: string }> };
  for (const [obj, assoc] of gltf.parser.associations as Map<THREE.Object3D | THREE.Material | THREE.Texture, { nodes?: number; materials?: number }>) {
    if ((obj as THREE.Object3D).isObject3D && assoc.nodes !== undefined) nodeName.set(obj as THREE.Object3D, json.nodes?.[assoc.nodes]?.name ?? '');
    if ((obj as THREE.Material).isMaterial && assoc.materials !== undefined) materialName.set(obj as THREE.Material, json.materials?.[assoc.materials]?.name ?? '');
  }
  let triangles = 0;
  gltf.scene.traverse((o) => {
    const m = o as THREE.Mesh;
    if (!m.isMesh) return;
    const g = m.geometry;
    triangles += Math.floor((g.index ? g.index.count : (g.attributes.position?.count ?? 0)) / 3);
  });
  return { scene: gltf.scene, nodeName, materialName, warnings, asset, triangles };
}

/** Decodes an embedded image with sharp into an 8-bit RGBA DataTexture (rows top to bottom, as glTF's UVs expect). */
async function decodeImage(bytes: Uint8Array): Promise<THREE.DataTexture> {
  const { data, info } = await sharp(bytes, { failOn: 'none' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const tex = new THREE.DataTexture(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), info.width, info.height, THREE.RGBAFormat, THREE.UnsignedByteType);
  tex.flipY = false;
  tex.needsUpdate = true;
  return tex;
}

function parseGlb(glb: Uint8Array, warnings: string[], label: string): Promise<GLTF> {
  const loader = new GLTFLoader();
  loader.register((parser) => {
    // Every image source goes through sharp: GLTFLoader's own path needs Blob URLs and <img>.
    const p = parser as unknown as {
      json: { images?: Array<{ bufferView?: number; mimeType?: string; name?: string }> };
      sourceCache: Record<number, Promise<THREE.Texture>>;
      getDependency(type: 'bufferView', index: number): Promise<ArrayBuffer>;
      loadImageSource(sourceIndex: number, loader: unknown): Promise<THREE.Texture>;
    };
    p.loadImageSource = (sourceIndex: number) => {
      const cached = p.sourceCache[sourceIndex];
      if (cached) return cached.then((t) => t.clone());
      const def = p.json.images?.[sourceIndex];
      const pending = (async () => {
        if (!def || def.bufferView === undefined) throw new Error('image without data');
        const buf = await p.getDependency('bufferView', def.bufferView);
        return decodeImage(new Uint8Array(buf));
      })();
      pending.catch((e: Error) => warnings.push(`image ${def?.name ?? sourceIndex} (${def?.mimeType ?? '?'}) could not be decoded: ${e.message}`));
      p.sourceCache[sourceIndex] = pending;
      return pending;
    };
    return { name: 'NODE_sharp_images' } as unknown as ReturnType<Parameters<GLTFLoader['register']>[0]>;
  });
  const buf = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength) as ArrayBuffer;
  return new Promise<GLTF>((resolve, reject) => {
    loader.parse(buf, '', resolve, (err) => reject(new GltfInputError(`cannot build the scene from ${label}: ${(err as Error).message ?? String(err)}`)));
  });
}
