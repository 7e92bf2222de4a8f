/**
 * Spin frames: a studio shot (shoot.ts, the same passes, shadow and calibration as a view) at the set's
 * turntable camera (geometry.ts), with the plate that faces the camera. A shooter keeps what the frames
 * of one vehicle share (environment, materials, contact shadow, render targets per size), so the second
 * frame of a vehicle costs only its own renders.
 */
import type * as THREE from 'three';
import type { SpinSourceMeta } from '../../shared/asset-format/read-set.ts';
import type { SpinFrameData } from '../../shared/asset-format/spin-frames.ts';
import { BAKER_VERSION } from '../bake-set.ts';
import { createShootContext, shootView } from '../shoot.ts';
import type { StudioSubject } from '../subject.ts';
import { facingPlate, plateCorners, turntableCamera } from './geometry.ts';

/** The layers and the frame record, ready for writeSpinFrame. */
export type SpinFrameShot = SpinFrameData;

export interface SpinShotOptions {
  /** Degrees, 0 = the front view's camera, growing towards the car's left side. */
  yaw: number;
  width: number;
  height: number;
  /** MSAA samples of each render (lavapipe: at most 4). */
  samples: number;
  /** Sub-pixel-jittered renders per pass. */
  supersample: number;
  lightDepth: 8 | 16;
}

export interface SpinShooter {
  shoot(o: SpinShotOptions): Promise<SpinFrameShot>;
  /** Gives the subject back with its own materials and frees the GL resources. */
  dispose(): void;
}

export function createSpinShooter(gl: THREE.WebGLRenderer, subject: StudioSubject, spin: SpinSourceMeta, neutralPaint: string): SpinShooter {
  const ctx = createShootContext(gl, subject, neutralPaint);
  let disposed = false;
  return {
    async shoot(o) {
      if (disposed) throw new Error('the spin shooter was disposed');
      const cam = turntableCamera(spin, o.yaw, o.width, o.height);
      const plate = facingPlate(spin, cam);
      const shot = shootView(ctx, cam, {
        width: o.width,
        height: o.height,
        samples: o.samples,
        supersample: o.supersample,
        lightDepth: o.lightDepth,
        hasShadow: true,
        plate: plate ? plateCorners(plate) : null,
      });
      return { ...shot, bakerVersion: BAKER_VERSION };
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      ctx.dispose();
    },
  };
}

/** One frame with a shooter of its own (for one-off shots; a sequence should keep a shooter). */
export async function shootSpinFrame(
  gl: THREE.WebGLRenderer,
  subject: StudioSubject,
  spin: SpinSourceMeta,
  neutralPaint: string,
  o: SpinShotOptions,
): Promise<SpinFrameShot> {
  const shooter = createSpinShooter(gl, subject, spin, neutralPaint);
  try {
    return await shooter.shoot(o);
  } finally {
    shooter.dispose();
  }
}
