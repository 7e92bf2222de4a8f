/**
 * A three.js WebGLRenderer on headless-gl (WebGL 2 over ANGLE; Vulkan back end, lavapipe on CPU-only
 * machines). Everything is drawn into float render targets; the tiny default framebuffer is unused.
 */
import { createRequire } from 'node:module';
import * as THREE from 'three';

type CreateGL = (w: number, h: number, opts?: Record<string, unknown>) => unknown;

export interface GLHandle {
  renderer: THREE.WebGLRenderer;
  maxSamples: number;
  dispose(): void;
}

/** Creates the renderer or throws with a clear message when no WebGL 2 context can be made. */
export function createGLRenderer(): GLHandle {
  process.env.ANGLE_DEFAULT_PLATFORM ??= 'vulkan';
  const require = createRequire(import.meta.url);
  let createGL: CreateGL;
  try {
    createGL = require('gl') as CreateGL;
  } catch (e) {
    throw new Error(`headless-gl ("gl") cannot be loaded: ${(e as Error).message}`);
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const gl = createGL(16, 16, { createWebGL2Context: true, antialias: false, preserveDrawingBuffer: false }) as any;
  if (!gl || typeof gl.getParameter !== 'function' || !String(gl.constructor?.name).includes('WebGL2')) {
    throw new Error('no WebGL 2 context could be made (headless-gl returned none; is Vulkan/lavapipe installed?)');
  }
  const canvas = {
    width: 16,
    height: 16,
    style: {},
    addEventListener() {},
    removeEventListener() {},
    getContext: () => gl,
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const renderer = new THREE.WebGLRenderer({ canvas: canvas as any, context: gl, antialias: false });
  renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
  renderer.toneMapping = THREE.NoToneMapping;
  const maxSamples = renderer.capabilities.maxSamples;
  return {
    renderer,
    maxSamples,
    dispose() {
      renderer.dispose();
      const ext = gl.getExtension('STACKGL_destroy_context');
      if (ext) ext.destroy();
    },
  };
}
