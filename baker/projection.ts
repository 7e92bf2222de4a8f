/**
 * 3D points of the studio frame to image pixels (x right, y down, pixel edges: 0 is the left edge of
 * the first column), with a camera's projection including its lens shift (view offset). One rule for
 * the baker's plate quads and the spin geometry, so a frame's plate quad lands where its shot drew it.
 */
import * as THREE from 'three';
import type { Quad } from '../shared/asset-format/read-set.ts';

const v = new THREE.Vector3();

export function projectToPixels(p: THREE.Vector3, cam: THREE.Camera, w: number, h: number): [number, number] {
  v.copy(p).project(cam);
  return [((v.x + 1) / 2) * w, ((1 - v.y) / 2) * h];
}

/** A plate's four corners in pixels, rounded to 0.01 px as set.json keeps them. */
export function projectQuad(corners: THREE.Vector3[], cam: THREE.Camera, w: number, h: number): Quad {
  return corners.map((c) => {
    const [x, y] = projectToPixels(c, cam, w, h);
    return [+x.toFixed(2), +y.toFixed(2)] as [number, number];
  }) as Quad;
}
