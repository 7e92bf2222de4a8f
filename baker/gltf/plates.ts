/**
 * Plate faces of a normalised glTF car: the front and rear plate meshes' outer faces as quads
 * (TL, TR, BR, BL seen from outside), or rectangles from the role map. Whether a view sees its plate
 * is decided after the bake, on the pictures (plate-check.ts).
 */
import * as THREE from 'three';
import type { RoleMap } from './roles.ts';

export interface PlateFace {
  corners: THREE.Vector3[];
  normal: THREE.Vector3;
}

/** Eigenvector of the smallest eigenvalue of a symmetric 3x3 matrix (cyclic Jacobi). */
function smallestEigenvector(m: number[][]): THREE.Vector3 {
  const a = m.map((r) => [...r]);
  const v = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < 3; p++) for (let q = p + 1; q < 3; q++) off += a[p]![q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < 3; p++) {
      for (let q = p + 1; q < 3; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-30) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < 3; k++) {
          const akp = a[k]![p]!, akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < 3; k++) {
          const apk = a[p]![k]!, aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < 3; k++) {
          const vkp = v[k]![p]!, vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  let best = 0;
  for (let i = 1; i < 3; i++) if (a[i]![i]! < a[best]![best]!) best = i;
  return new THREE.Vector3(v[0]![best]!, v[1]![best]!, v[2]![best]!).normalize();
}

/** Corners TL, TR, BR, BL of a rectangle facing `normal` (outwards), its top edge level. */
export function rectCorners(center: THREE.Vector3, normal: THREE.Vector3, halfW: number, halfH: number, uOff = [-halfW, halfW], vOff = [-halfH, halfH]): THREE.Vector3[] {
  const n = normal.clone().normalize();
  const up = new THREE.Vector3(0, 1, 0).addScaledVector(n, -n.y);
  if (up.lengthSq() < 1e-8) up.set(1, 0, 0);
  up.normalize();
  // seen from outside the viewer looks along -n; their right is (-n) x up
  const right = new THREE.Vector3().crossVectors(n.clone().negate(), up).normalize();
  const at = (u: number, v: number) => center.clone().addScaledVector(right, u).addScaledVector(up, v);
  return [at(uOff[0]!, vOff[1]!), at(uOff[1]!, vOff[1]!), at(uOff[1]!, vOff[0]!), at(uOff[0]!, vOff[0]!)];
}

/** The outer face of a plate from its meshes' vertices (studio frame). */
export function plateFaceFromMeshes(meshes: THREE.Mesh[], side: 'front' | 'rear'): PlateFace | null {
  const pts: THREE.Vector3[] = [];
  for (const m of meshes) {
    m.updateWorldMatrix(true, false);
    const pos = m.geometry.attributes.position as THREE.BufferAttribute;
    for (let i = 0; i < pos.count; i++) pts.push(new THREE.Vector3().fromBufferAttribute(pos, i).applyMatrix4(m.matrixWorld));
  }
  if (pts.length < 3) return null;
  const c = new THREE.Vector3();
  for (const p of pts) c.add(p);
  c.divideScalar(pts.length);
  const cov = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
  for (const p of pts) {
    const d = [p.x - c.x, p.y - c.y, p.z - c.z];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) cov[i]![j]! += d[i]! * d[j]!;
  }
  const n = smallestEigenvector(cov);
  const outward = side === 'front' ? 1 : -1;
  if (n.x * outward < 0) n.negate();
  if (Math.abs(n.x) < 0.3) return null; // not a plate facing front or back
  const up = new THREE.Vector3(0, 1, 0).addScaledVector(n, -n.y).normalize();
  const right = new THREE.Vector3().crossVectors(n.clone().negate(), up).normalize();
  let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity, w1 = -Infinity;
  const d = new THREE.Vector3();
  for (const p of pts) {
    d.subVectors(p, c);
    const u = d.dot(right), v = d.dot(up), w = d.dot(n);
    u0 = Math.min(u0, u); u1 = Math.max(u1, u);
    v0 = Math.min(v0, v); v1 = Math.max(v1, v);
    w1 = Math.max(w1, w);
  }
  if (!(u1 - u0 > 1e-4 && v1 - v0 > 1e-4)) return null;
  const face = c.clone().addScaledVector(n, w1);
  return { corners: rectCorners(face, n, 0, 0, [u0, u1], [v0, v1]), normal: n };
}

/** A plate from the role map (studio frame), or undefined when the map says nothing about that side. */
export function plateFaceFromMap(map: RoleMap | undefined, side: 'front' | 'rear'): PlateFace | null | undefined {
  const def = map?.plates?.[side];
  if (def === undefined) return undefined;
  if (def === null) return null;
  if ('corners' in def) {
    const corners = def.corners.map((c) => new THREE.Vector3(...c));
    const normal = new THREE.Vector3().crossVectors(corners[1]!.clone().sub(corners[0]!), corners[3]!.clone().sub(corners[0]!)).normalize();
    // TL→TR × TL→BL points into the car for a quad seen clockwise from outside
    normal.negate();
    return { corners, normal };
  }
  const normal = new THREE.Vector3(side === 'front' ? 1 : -1, 0, 0);
  return { corners: rectCorners(new THREE.Vector3(...def.center), normal, def.size[0] / 2, def.size[1] / 2), normal };
}
