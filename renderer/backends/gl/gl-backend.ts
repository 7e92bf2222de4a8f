import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import * as THREE from 'three';
import type { Logger } from '../../../shared/logger.ts';
import type { Layers } from '../../assets/layers.ts';
import { ARENA_ONLY_LEVEL_EXTRAS } from '../cpu/level-extras.ts';
import type { PlateTexture } from '../../plate/plate-raster.ts';
import { PLATE_WHITE_LINEAR, SHOULDER_KNEE, type CompositeJob, type Compositor, type RgbImage } from '../backend.ts';
import { BufferPool } from '../cpu/buffer-pool.ts';
import { nonZeroBox, type PixelBox } from '../../assets/plane-box.ts';
import { SRGB8_TO_LINEAR } from '../../../shared/color/srgb.ts';
import { FRAGMENT_SHADER, VERTEX_SHADER } from './shaders.ts';

const require = createRequire(import.meta.url);

/** The few members of headless-gl's WebGL2RenderingContext used here (no DOM typings in this project). */
interface GL {
  readonly RENDERER: number;
  readonly VERSION: number;
  getParameter(p: number): unknown;
  _getParameterDirect?(p: number): unknown;
  getExtension(name: string): { destroy(): void } | null;
  readonly PACK_ROW_LENGTH: number;
  readonly RGBA: number;
  readonly UNSIGNED_BYTE: number;
  pixelStorei(p: number, v: number): void;
  readPixels(x: number, y: number, w: number, h: number, format: number, type: number, out: Uint8Array): void;
}

/** The real ANGLE renderer string (headless-gl masks RENDERER behind a constant). */
function glInfo(gl: GL): string {
  const direct = (p: number) => String(gl._getParameterDirect ? gl._getParameterDirect(p) : gl.getParameter(p));
  return `${direct(gl.RENDERER)} | ${direct(gl.VERSION)}`;
}

/**
 * Creates a headless WebGL2 context on ANGLE (Vulkan back end: Mesa lavapipe without a GPU, the
 * NVIDIA driver's Vulkan on GPU nodes). Throws when gl is not installed or no context can be made.
 */
export function createHeadlessGl(width = 1, height = 1): GL {
  process.env.ANGLE_DEFAULT_PLATFORM ??= 'vulkan';
  let createGL: (w: number, h: number, o: Record<string, unknown>) => GL | null;
  try {
    createGL = require('gl');
  } catch (e) {
    throw new Error(`the optional package gl is not installed (${(e as Error).message})`);
  }
  const gl = createGL(width, height, {
    createWebGL2Context: true,
    antialias: false,
    alpha: true,
    depth: false,
    stencil: false,
    premultipliedAlpha: false,
    preserveDrawingBuffer: false,
  });
  if (!gl) throw new Error('headless-gl could not create a context (is a Vulkan ICD installed and libvulkan.so.1 linked?)');
  if (typeof (gl as { texImage3D?: unknown }).texImage3D !== 'function') {
    throw new Error('headless-gl returned a WebGL 1 context; WebGL 2 is required');
  }
  return gl;
}

/** Pixels a render may change ([x0, y0, x1, y1)); the rest is the level's background picture. */
type Box = PixelBox;

interface LayerTextures {
  /** Painted pixels' bounding box (the only pixels the colour reaches); null where nothing is painted. */
  paintBox: Box | null;
  base: THREE.DataTexture;
  paint: THREE.DataTexture;
  diffuse: THREE.DataTexture;
  specular: THREE.DataTexture;
  shadow: THREE.DataTexture | null;
  coverage: THREE.DataTexture | null;
  bytes: number;
}

function tex(
  data: ArrayBufferView,
  w: number,
  h: number,
  format: THREE.PixelFormat,
  type: THREE.TextureDataType,
  internal: THREE.PixelFormatGPU | null,
  filter: THREE.MagnificationTextureFilter,
): THREE.DataTexture {
  // headless-gl wants plain ArrayBuffers; layers live in SharedArrayBuffers for the cpu workers
  const plain =
    data.buffer instanceof SharedArrayBuffer
      ? new (data.constructor as new (n: number) => ArrayBufferView & { set(a: ArrayLike<number>): void; length: number })(
          (data as unknown as { length: number }).length,
        )
      : data;
  if (plain !== data) (plain as unknown as { set(a: ArrayLike<number>): void }).set(data as unknown as ArrayLike<number>);
  const t = new THREE.DataTexture(plain as never, w, h, format, type);
  t.internalFormat = internal;
  t.minFilter = filter as THREE.MinificationTextureFilter;
  t.magFilter = filter;
  t.wrapS = THREE.ClampToEdgeWrapping;
  t.wrapT = THREE.ClampToEdgeWrapping;
  t.generateMipmaps = false;
  t.flipY = false;
  t.unpackAlignment = 1;
  t.colorSpace = THREE.NoColorSpace;
  t.needsUpdate = true;
  return t;
}

function union(a: Box | null, b: Box | null): Box | null {
  if (b && (b[2] <= b[0] || b[3] <= b[1])) b = null;
  if (!a) return b;
  if (!b) return a;
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

/** Copies every pixel of `from` outside `box` into `to` (RGBA pictures of one size). */
function copyOutside(from: Uint8Array, to: Uint8Array, width: number, height: number, box: Box): void {
  const [x0, y0, x1, y1] = box;
  const row = width * 4;
  if (y0 > 0) to.set(from.subarray(0, y0 * row));
  if (y1 < height) to.set(from.subarray(y1 * row), y1 * row);
  if (x0 === 0 && x1 === width) return;
  for (let y = y0; y < y1; y++) {
    const r = y * row;
    if (x0 > 0) to.set(from.subarray(r, r + x0 * 4), r);
    if (x1 < width) to.set(from.subarray(r + x1 * 4, r + row), r + x1 * 4);
  }
}

export type GlReadback = 'region' | 'full';

/** Backgrounds (the picture of a level outside its painted box) kept, in bytes. */
const BACKGROUND_CACHE_BYTES = 256 * 1024 * 1024;
/** Render targets kept, one per picture size. */
const TARGETS_KEPT = 8;

/**
 * The gl backend: three.js (WebGL 2) on headless-gl. Layers become textures once (cached per
 * layers key, bounded by bytes); one full-screen pass evaluates the same formula as the cpu kernel
 * with texelFetch at exact pixels, and the plate is placed by the inverse homography per fragment,
 * sampled bilinearly from its padded float texture. One context, used by one render at a time.
 *
 * Only the painted box and the plate's box depend on the job: the rest of a level's picture (backdrop,
 * floor, shadow, untouched parts of the car) is the same for every colour. So the first render of a
 * level (per shadow and background) draws and reads back the whole picture and keeps it; later ones
 * draw and read back only the changing box, straight into the output rows (PACK_ROW_LENGTH), and copy
 * the rest from the kept picture. On lavapipe the fragments are what cost (a 2400 px composite went
 * from 166-257 to 97-147 ms); on a GPU they are nearly free and the readback is what is left
 * (docs/performance-renderer.md, "GPU").
 * headless-gl 9 cannot read a pixel-pack buffer back (its getBufferSubData is an empty stub and it
 * has no mapBufferRange), and its addon does not load in worker threads, so readbacks cannot overlap
 * draws: one synchronous readback per render is the floor of this backend.
 */
export class GlCompositor implements Compositor {
  readonly name = 'gl' as const;
  readonly levelExtras = ARENA_ONLY_LEVEL_EXTRAS;
  readonly description: string;
  private readonly renderer: THREE.WebGLRenderer;
  private readonly scene = new THREE.Scene();
  private readonly camera = new THREE.Camera();
  private readonly material: THREE.RawShaderMaterial;
  /** One render target per picture size (setSize on one target would rebuild it at each size change). */
  private readonly targets = new Map<string, THREE.WebGLRenderTarget>();
  /** Each level's background picture per shadow and background (key `layersKey|shadow|background`). */
  private readonly backgrounds = new LRUCache<string, Uint8Array>({ maxSize: BACKGROUND_CACHE_BYTES, sizeCalculation: (b) => Math.max(1, b.byteLength) });
  private readonly textures: LRUCache<string, LayerTextures>;
  private readonly plates = new WeakMap<PlateTexture, THREE.DataTexture>();
  private readonly plateList: { key: PlateTexture; tex: THREE.DataTexture }[] = [];
  private readonly dummy8: THREE.DataTexture;
  private readonly dummyF: THREE.DataTexture;
  private readonly dummyU8: THREE.DataTexture;
  private readonly toLinear: THREE.DataTexture;
  private chain: Promise<unknown> = Promise.resolve();
  /** Readback buffers reused once encoded: a fresh 13 MB buffer per 2400 px picture costs its page faults. */
  private readonly pool = new BufferPool(48 * 1024 * 1024, (n) => new Uint8Array(n));

  private constructor(
    private readonly gl: GL,
    private readonly logger: Logger,
    /** `region` (the default) or `full`: every render draws and reads back the whole picture (the bench's baseline). */
    private readonly readback: GlReadback,
  ) {
    this.description = glInfo(gl);
    const canvas = {
      width: 1,
      height: 1,
      style: {},
      addEventListener() {},
      removeEventListener() {},
      getContext: () => gl,
    };
    this.renderer = new THREE.WebGLRenderer({ canvas: canvas as never, context: gl as never, antialias: false });
    this.renderer.autoClear = false;
    this.renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
    this.dummy8 = tex(new Uint8Array([0]), 1, 1, THREE.RedFormat, THREE.UnsignedByteType, 'R8', THREE.NearestFilter);
    this.dummyF = tex(new Float32Array(4), 1, 1, THREE.RGBAFormat, THREE.FloatType, 'RGBA32F', THREE.LinearFilter);
    this.dummyU8 = tex(new Uint8Array([0]), 1, 1, THREE.RedIntegerFormat, THREE.UnsignedByteType, 'R8UI', THREE.NearestFilter);
    this.toLinear = tex(SRGB8_TO_LINEAR, 256, 1, THREE.RedFormat, THREE.FloatType, 'R32F', THREE.NearestFilter);
    this.material = new THREE.RawShaderMaterial({
      glslVersion: THREE.GLSL3,
      vertexShader: VERTEX_SHADER,
      fragmentShader: FRAGMENT_SHADER,
      depthTest: false,
      depthWrite: false,
      uniforms: {
        uBase: { value: this.dummyU8 },
        uToLinear: { value: this.toLinear },
        uPaint: { value: this.dummy8 },
        uDiffuse: { value: null },
        uSpecular: { value: null },
        uShadow: { value: this.dummy8 },
        uCoverage: { value: this.dummy8 },
        uHasShadow: { value: false },
        uTransparent: { value: false },
        uBackTop: { value: new THREE.Vector3() },
        uBackBottom: { value: new THREE.Vector3() },
        uHeight: { value: 1 },
        uColor: { value: new THREE.Vector3() },
        uNeutral: { value: new THREE.Vector3() },
        uCalib: { value: new THREE.Vector2(1, 0) },
        uKnee: { value: SHOULDER_KNEE },
        uPlate: { value: this.dummyF },
        uHasPlate: { value: false },
        uHinv: { value: new THREE.Matrix3() },
        uPlateGeom: { value: new THREE.Vector4() },
        uPlateTex: { value: new THREE.Vector2(1, 1) },
        uBBox: { value: new THREE.Vector4() },
        uPlateWhite: { value: PLATE_WHITE_LINEAR },
      },
    });
    const geom = new THREE.BufferGeometry();
    geom.setAttribute('position', new THREE.BufferAttribute(new Float32Array([-1, -1, 0, 3, -1, 0, -1, 3, 0]), 3));
    const mesh = new THREE.Mesh(geom, this.material);
    mesh.frustumCulled = false;
    this.scene.add(mesh);
    this.textures = new LRUCache<string, LayerTextures>({
      maxSize: 1024 * 1024 * 1024,
      sizeCalculation: (t) => Math.max(1, t.bytes),
      dispose: (t) => {
        for (const x of [t.base, t.paint, t.diffuse, t.specular, t.shadow, t.coverage]) x?.dispose();
      },
    });
  }

  static async create(opts: { logger: Logger; readback?: GlReadback }): Promise<GlCompositor> {
    const gl = createHeadlessGl();
    const c = new GlCompositor(gl, opts.logger, opts.readback ?? 'region');
    // a first draw compiles the program now rather than on the first request
    c.drawSync(
      {
        layers: {
          key: '__warmup',
          width: 2,
          height: 2,
          base: new Uint8Array(12),
          paint: new Uint8Array(4),
          diffuse: new Uint16Array(4),
          specular: new Uint16Array(4),
          shadow: null,
          coverage: null,
          bytes: 0,
        },
        color: [0, 0, 0],
        neutral: [0.7, 0.7, 0.7],
        calibration: { diffuseGain: 1, specularFloor: 0 },
        shadow: false,
        plate: null,
        transparent: null,
      },
      false,
    );
    c.textures.delete('__warmup');
    return c;
  }

  private layerTextures(l: Layers): LayerTextures {
    let t = this.textures.get(l.key);
    if (!t) {
      const { width: w, height: h } = l;
      t = {
        // RGB as a single-channel texture three times as wide: no RGB→RGBA copy, texelFetch per channel
        paintBox: nonZeroBox(l.paint, w, h),
        base: tex(l.base, w * 3, h, THREE.RedIntegerFormat, THREE.UnsignedByteType, 'R8UI', THREE.NearestFilter),
        paint: tex(l.paint, w, h, THREE.RedFormat, THREE.UnsignedByteType, 'R8', THREE.NearestFilter),
        diffuse: tex(l.diffuse, w, h, THREE.RedIntegerFormat, THREE.UnsignedShortType, 'R16UI', THREE.NearestFilter),
        specular: tex(l.specular, w, h, THREE.RedIntegerFormat, THREE.UnsignedShortType, 'R16UI', THREE.NearestFilter),
        shadow: l.shadow ? tex(l.shadow, w, h, THREE.RedFormat, THREE.UnsignedByteType, 'R8', THREE.NearestFilter) : null,
        coverage: l.coverage ? tex(l.coverage, w, h, THREE.RedFormat, THREE.UnsignedByteType, 'R8', THREE.NearestFilter) : null,
        bytes: l.bytes,
      };
      this.textures.set(l.key, t);
    }
    return t;
  }

  private plateTexture(p: PlateTexture): THREE.DataTexture {
    let t = this.plates.get(p);
    if (!t) {
      t = tex(p.data, p.tw, p.th, THREE.RGBAFormat, THREE.FloatType, 'RGBA32F', THREE.LinearFilter);
      this.plates.set(p, t);
      this.plateList.push({ key: p, tex: t });
      if (this.plateList.length > 32) this.plateList.shift()!.tex.dispose();
    }
    return t;
  }

  private drawSync(job: CompositeJob, read = true): RgbImage {
    const l = job.layers;
    const { width, height } = l;
    const t = this.layerTextures(l);
    const u = this.material.uniforms as Record<string, THREE.IUniform>;
    u.uBase!.value = t.base;
    u.uPaint!.value = t.paint;
    u.uDiffuse!.value = t.diffuse;
    u.uSpecular!.value = t.specular;
    u.uShadow!.value = job.shadow && t.shadow ? t.shadow : this.dummy8;
    u.uHasShadow!.value = Boolean(job.shadow && t.shadow);
    (u.uColor!.value as THREE.Vector3).set(...job.color);
    (u.uNeutral!.value as THREE.Vector3).set(...job.neutral);
    (u.uCalib!.value as THREE.Vector2).set(job.calibration.diffuseGain, job.calibration.specularFloor);
    const alpha = Boolean(job.transparent && t.coverage);
    u.uTransparent!.value = alpha;
    u.uCoverage!.value = alpha ? t.coverage : this.dummy8;
    u.uHeight!.value = height;
    if (job.transparent) {
      (u.uBackTop!.value as THREE.Vector3).set(...job.transparent.top);
      (u.uBackBottom!.value as THREE.Vector3).set(...job.transparent.bottom);
    }
    if (job.plate) {
      const p = job.plate;
      const h = p.hinv;
      u.uPlate!.value = this.plateTexture(p.tex);
      u.uHasPlate!.value = true;
      (u.uHinv!.value as THREE.Matrix3).set(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]);
      (u.uPlateGeom!.value as THREE.Vector4).set(p.tex.pw, p.tex.ph, p.tex.pad, 0);
      (u.uPlateTex!.value as THREE.Vector2).set(p.tex.tw, p.tex.th);
      (u.uBBox!.value as THREE.Vector4).set(...p.bbox);
    } else {
      u.uPlate!.value = this.dummyF;
      u.uHasPlate!.value = false;
    }
    const target = this.targetFor(width, height);
    if (!read) {
      target.scissorTest = false;
      this.renderer.setRenderTarget(target);
      this.renderer.render(this.scene, this.camera);
      this.renderer.setRenderTarget(null);
      return { width, height, data: new Uint8Array(0), channels: 4, alpha };
    }
    const out = this.pool.take(width * height * 4);
    if (this.readback === 'full') {
      this.drawAndRead(target, [0, 0, width, height], out);
      return { width, height, data: out, channels: 4, alpha };
    }
    const bgKey = `${l.key}|${u.uHasShadow!.value ? 'S' : '-'}|${alpha ? 'T' : 'O'}`;
    let background = this.backgrounds.get(bgKey);
    if (!background) {
      // the level's first picture with this shadow and background, drawn whole and kept without the
      // plate (a later render without one would otherwise keep its pixels outside the painted box)
      u.uHasPlate!.value = false;
      this.drawAndRead(target, [0, 0, width, height], out);
      u.uHasPlate!.value = Boolean(job.plate);
      background = out.slice();
      this.backgrounds.set(bgKey, background);
      if (!job.plate) return { width, height, data: out, channels: 4, alpha };
    }
    const box = union(t.paintBox, job.plate ? job.plate.bbox : null);
    if (!box) out.set(background);
    else {
      this.drawAndRead(target, box, out);
      copyOutside(background, out, width, height, box);
    }
    return { width, height, data: out, channels: 4, alpha };
  }

  /** Draws the box of the picture and reads it back into the same rows and columns of `out`. */
  private drawAndRead(target: THREE.WebGLRenderTarget, box: Box, out: Uint8Array): void {
    const [x0, y0, x1, y1] = box;
    const whole = x0 === 0 && y0 === 0 && x1 === target.width && y1 === target.height;
    target.scissorTest = !whole;
    target.scissor.set(x0, y0, x1 - x0, y1 - y0);
    this.renderer.setRenderTarget(target);
    this.renderer.render(this.scene, this.camera);
    const gl = this.gl;
    gl.pixelStorei(gl.PACK_ROW_LENGTH, target.width);
    gl.readPixels(x0, y0, x1 - x0, y1 - y0, gl.RGBA, gl.UNSIGNED_BYTE, out.subarray((y0 * target.width + x0) * 4));
    gl.pixelStorei(gl.PACK_ROW_LENGTH, 0);
    this.renderer.setRenderTarget(null);
  }

  private targetFor(width: number, height: number): THREE.WebGLRenderTarget {
    const key = `${width}x${height}`;
    let t = this.targets.get(key);
    if (t) {
      this.targets.delete(key); // re-inserted: the map's order is the use order
    } else {
      t = new THREE.WebGLRenderTarget(width, height, {
        type: THREE.UnsignedByteType,
        format: THREE.RGBAFormat,
        depthBuffer: false,
        stencilBuffer: false,
        generateMipmaps: false,
        minFilter: THREE.NearestFilter,
        magFilter: THREE.NearestFilter,
      });
      if (this.targets.size >= TARGETS_KEPT) {
        const [oldest, old] = this.targets.entries().next().value!;
        this.targets.delete(oldest);
        old.dispose();
      }
    }
    this.targets.set(key, t);
    return t;
  }

  composite(job: CompositeJob): Promise<RgbImage> {
    // one context: renders take turns (each is synchronous GL work; encoding runs after, off this chain)
    const run = this.chain.then(() => this.drawSync(job));
    this.chain = run.catch(() => undefined);
    return run;
  }

  forget(layersKey: string): void {
    this.textures.delete(layersKey);
    for (const k of [...this.backgrounds.keys()]) if (k.startsWith(`${layersKey}|`)) this.backgrounds.delete(k);
  }

  release(img: RgbImage): void {
    this.pool.give(img.data);
  }

  async close(): Promise<void> {
    await this.chain;
    this.textures.clear();
    for (const p of this.plateList.splice(0)) p.tex.dispose();
    for (const t of this.targets.values()) t.dispose();
    this.targets.clear();
    this.backgrounds.clear();
    this.material.dispose();
    this.renderer.dispose();
    this.gl.getExtension('STACKGL_destroy_context')?.destroy();
  }
}
