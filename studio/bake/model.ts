/**
 * Procedural vehicle: a lofted lower body (superellipse sections along spline profiles), a separate
 * greenhouse loft (glass, roof and pillars told apart per quad), lathe-turned tyres and rims, wheel
 * arches cut into the body in the fragment shader, lights, grille, mirrors and plate holders.
 * Coordinates: metres, +X forward (nose at +length/2), +Y up (floor at 0), +Z the car's right side.
 * Every mesh carries `userData.tag` (or per-group tags in `userData.tags`); procedural.ts turns them
 * into roles and own materials for the baker. `userData.side === 'back'` marks the insides of shells.
 */
import * as THREE from 'three';
import type { ArchCut } from './own-materials.ts';
import type { VehicleParams } from './styles.ts';
import { BodyShape, gridGeometry, samplesWith } from './body-shape.ts';
import { addDiffuser, addNose, addPlate, addTail, endSurfaces } from './end-details.ts';
import { addCabin, addGreenhouse, greenhouseShape } from './greenhouse.ts';
import { tagged } from './parts.ts';
import { addRunningGear } from './running-gear.ts';
import { addBed, addHandles, addMirrors } from './side-details.ts';

export type { ArchCut, Tag } from './own-materials.ts';

export interface Vehicle {
  group: THREE.Group;
  arch: ArchCut;
  /** Plate face corners in 3D, order: top-left, top-right, bottom-right, bottom-left as seen from outside. */
  plates: { front: THREE.Vector3[]; rear: THREE.Vector3[] };
  params: VehicleParams;
}

export function buildVehicle(p: VehicleParams): Vehicle {
  const body = new BodyShape(p);
  const group = new THREE.Group();
  // the order parts are added in is the order the baker draws them in
  const clipY = addLowerBody(group, p, body);
  const g = greenhouseShape(p, body);
  addGreenhouse(group, p, body, g);
  addCabin(group, p, body, g);
  const arch = addRunningGear(group, p, body, clipY);
  const ends = endSurfaces(body);
  const grilleH = addNose(group, p, ends);
  const front = addPlate(group, ends, true, Math.max(p.clearance + 0.2, p.noseTop - grilleH - 0.16));
  const tailY = addTail(group, p, body, ends);
  const rear = addPlate(group, ends, false, Math.min(tailY - 0.2, Math.max(p.clearance + 0.33, tailY - 0.26)));
  addDiffuser(group, p, ends);
  addMirrors(group, p, body, g);
  addHandles(group, p, body, g);
  addBed(group, p, body, g);
  return { group, arch, plates: { front, rear }, params: p };
}

/**
 * The lower body: the loft drawn twice, paint above the trim line and black trim (cladding, sills, the
 * underbody) below it, and its inside; returns the trim line's height.
 */
function addLowerBody(group: THREE.Group, p: VehicleParams, body: BodyShape): number {
  const L = p.length;
  const uEnds: number[] = [];
  for (let k = 1; k < 14; k++) {
    const t = Math.pow(k / 14, 2) * p.cornerRadius;
    uEnds.push(t, L - t);
  }
  const uS = samplesWith(0, L, 0.014, uEnds);
  const M = 160;
  const phis: number[] = [];
  for (let j = 0; j < M; j++) phis.push((j / M) * Math.PI * 2);
  // Paint above clipY, black trim (cladding, sills, the underbody) below: the same shell drawn twice
  // with complementary per-pixel clips, so the boundary is a clean line at any resolution.
  const clipY = p.clearance + Math.max(p.cladding, 0.035);
  const lower = gridGeometry(
    uS.length,
    M,
    true,
    (i, j, out) => body.point(uS[i]!, phis[j]!, out),
    () => 'paint',
  );
  group.add(tagged(lower.geometry, 'paint', true, 'above'));
  group.add(tagged(lower.geometry, 'trim', true, 'below'));
  // The inside of the shell: seen through the wheel arches.
  const inside = tagged(lower.geometry, 'interior');
  inside.userData.side = 'back';
  group.add(inside);
  return clipY;
}
