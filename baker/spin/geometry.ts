/**
 * The turntable camera of a set's spin frames and what it sees, by projection alone (no model, no GL):
 * the frame's vehicle box, ground line and plate quad (docs/asset-format.md, "The 3D source"). The shot
 * (shoot-frame.ts) uses the same camera, so the geometry is where the pixels are.
 */
import * as THREE from 'three';
import type { SpinSourceMeta, Vec3 } from '../../shared/asset-format/read-set.ts';
import { projectQuad, projectToPixels } from '../projection.ts';
import { around } from '../studio.ts';

export type SpinRig = SpinSourceMeta['rig'];

/**
 * A plate has a quad in a frame while the angle between its outward normal and the direction to the
 * camera is below this. The views show plates at up to about 40° (three-quarter views); at 70° a plate
 * is foreshortened to a third of its width, and beyond it the quad becomes a sliver that the body's
 * own plate recess starts to hide, where a composited plate would float on the paint.
 */
export const PLATE_FACING_MAX_DEGREES = 70;

/**
 * The rig's camera at `yawDegrees` (0 = the front view's camera, growing towards the car's left side:
 * camera azimuth −yaw) for a frame of width × height, its vertical lens shift applied as a view offset.
 */
export function rigCamera(rig: SpinRig, yawDegrees: number, width: number, height: number): THREE.PerspectiveCamera {
  const target = new THREE.Vector3(...rig.target);
  const cam = new THREE.PerspectiveCamera(rig.fov, width / height, 0.1, 200);
  cam.position.copy(target).addScaledVector(around(-yawDegrees, rig.elevationDegrees), rig.distance);
  cam.up.set(0, 1, 0);
  cam.lookAt(target);
  // a point at NDC y without the shift lands at y − shiftY (as frameCamera centres the views)
  cam.setViewOffset(width, height, 0, (-rig.shiftY * height) / 2, width, height);
  cam.updateProjectionMatrix();
  cam.updateMatrixWorld(true);
  return cam;
}

/** The camera of a set's spin frame: what the shot uses and what the geometry projects with. */
export function turntableCamera(spin: SpinSourceMeta, yawDegrees: number, width: number, height: number): THREE.PerspectiveCamera {
  return rigCamera(spin.rig, yawDegrees, width, height);
}

/** The plate a frame shows, if any: the one whose normal faces the camera within PLATE_FACING_MAX_DEGREES. */
export function facingPlate(spin: SpinSourceMeta, cam: THREE.Camera): SpinSourceMeta['plates']['front'] {
  const limit = Math.cos((PLATE_FACING_MAX_DEGREES * Math.PI) / 180);
  let best: SpinSourceMeta['plates']['front'] = null;
  let bestCos = limit;
  for (const plate of [spin.plates.front, spin.plates.rear]) {
    if (!plate) continue;
    const centre = new THREE.Vector3();
    for (const c of plate.corners) centre.add(new THREE.Vector3(...c));
    centre.multiplyScalar(0.25);
    const toCam = cam.position.clone().sub(centre).normalize();
    const cos = toCam.dot(new THREE.Vector3(...plate.normal).normalize());
    if (cos > bestCos) {
      bestCos = cos;
      best = plate;
    }
  }
  return best;
}

export function plateCorners(plate: { corners: Vec3[] }): THREE.Vector3[] {
  return plate.corners.map((c) => new THREE.Vector3(...c));
}

export interface SpinFrameGeometry {
  /** The vehicle's bounding box in pixels (y down), to whole pixels outward. */
  box: { x: number; y: number; width: number; height: number };
  /** Where the wheels stand: the box's bottom edge. */
  groundY: number;
  /** The facing plate's corners in pixels (TL, TR, BR, BL), or null. */
  plateQuad: [number, number][] | null;
}

/** The NDC-free bounds of the projected outline, in pixels (floats). */
export function outlineBounds(outline: readonly Vec3[], cam: THREE.Camera, width: number, height: number): { x0: number; x1: number; y0: number; y1: number } {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const p = new THREE.Vector3();
  for (const v of outline) {
    const [x, y] = projectToPixels(p.set(v[0], v[1], v[2]), cam, width, height);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return { x0, x1, y0, y1 };
}

export function spinFrameGeometry(spin: SpinSourceMeta, yawDegrees: number, width: number, height: number): SpinFrameGeometry {
  const cam = turntableCamera(spin, yawDegrees, width, height);
  const b = outlineBounds(spin.outline, cam, width, height);
  const x = Math.floor(b.x0), y = Math.floor(b.y0);
  const right = Math.ceil(b.x1), bottom = Math.ceil(b.y1);
  const plate = facingPlate(spin, cam);
  return {
    box: { x, y, width: right - x, height: bottom - y },
    groundY: bottom,
    plateQuad: plate ? projectQuad(plateCorners(plate), cam, width, height) : null,
  };
}
