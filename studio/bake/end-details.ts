/**
 * The nose and the tail: headlights, grille and intake, tail lights and reflectors, the rear diffuser,
 * and the plate holders with their plates, placed on the body's end surfaces. Coordinates as in model.ts.
 */
import * as THREE from 'three';
import type { VehicleParams } from './styles.ts';
import type { BodyShape } from './body-shape.ts';
import { ellipsoid, roundedSlab, tagged } from './parts.ts';

/** Points on the body's front and rear surfaces, and the outward normal there in plan. */
export interface EndSurfaces {
  /** The point of the front at height y and across z, `inset` metres behind it. */
  frontPoint(y: number, z: number, inset: number): THREE.Vector3;
  /** The point of the tail at height y and across z, `inset` metres ahead of it. */
  rearPoint(y: number, z: number, inset: number): THREE.Vector3;
  /** The outward normal of the front (or tail) in the XZ plane at (y, z). */
  yawAt(y: number, z: number, front: boolean): THREE.Vector3;
}

export function endSurfaces(body: BodyShape): EndSurfaces {
  const frontPoint = (y: number, z: number, inset: number) => {
    const u = body.frontU(y, z);
    return new THREE.Vector3(body.x(u) - inset, y, z);
  };
  const rearPoint = (y: number, z: number, inset: number) => {
    const u = body.rearU(y, z);
    return new THREE.Vector3(body.x(u) + inset, y, z);
  };
  const yawAt = (y: number, z: number, front: boolean) => {
    const dz = 0.04;
    const a = front ? frontPoint(y, z - dz, 0) : rearPoint(y, z - dz, 0);
    const b = front ? frontPoint(y, z + dz, 0) : rearPoint(y, z + dz, 0);
    // Surface tangent in the XZ plane; outward normal is perpendicular to it.
    const t = new THREE.Vector3().subVectors(b, a).normalize();
    const n = new THREE.Vector3(t.z, 0, -t.x);
    if (front ? n.x < 0 : n.x > 0) n.negate();
    return n;
  };
  return { frontPoint, rearPoint, yawAt };
}

/** Headlights with their daylight strips, the grille with its bars, and the intake; returns the grille's height. */
export function addNose(group: THREE.Group, p: VehicleParams, ends: EndSurfaces): number {
  const { frontPoint, yawAt } = ends;
  const noseY = p.noseTop;
  const lampW = Math.min(0.34, p.width * 0.17);
  for (const s of [1, -1]) {
    const z = s * (p.width / 2 - 0.08 - lampW / 2);
    const y = noseY - 0.085;
    const n = yawAt(y, z, true);
    const lamp = roundedSlab(lampW, 0.085, 0.08, 'headlight', 5);
    const c = frontPoint(y, z, 0.015);
    lamp.position.copy(c);
    lamp.rotation.y = Math.atan2(-n.z, n.x);
    group.add(lamp);
    // inner bright element
    const inner = ellipsoid(0.035, 0.03, 0.03, 'chrome', 24);
    inner.position.copy(frontPoint(y, z - s * lampW * 0.18, -0.008));
    group.add(inner);
    // fog/daylight strip lower
    const drl = roundedSlab(0.16, 0.03, 0.04, 'headlight', 5);
    const cy = p.clearance + 0.17;
    const cz = s * (p.width / 2 - 0.2);
    drl.position.copy(frontPoint(cy, cz, 0.01));
    group.add(drl);
  }
  // grille
  const grilleW = Math.min(0.95, p.width * 0.46);
  const grilleH = Math.max(0.12, (noseY - p.clearance) * 0.3);
  {
    const y = noseY - 0.04 - grilleH / 2;
    const gr = roundedSlab(grilleW, grilleH, 0.12, 'grille', 5);
    gr.position.copy(frontPoint(y, 0, 0.045));
    group.add(gr);
    for (let k = 1; k <= 3; k++) {
      const bar = roundedSlab(grilleW * 0.86, 0.012, 0.03, 'chrome', 6);
      const yy = y - grilleH / 2 + (k * grilleH) / 4;
      bar.position.copy(frontPoint(yy, 0, 0.0));
      group.add(bar);
    }
    const intakeY = p.clearance + 0.1;
    const intake = roundedSlab(p.width * 0.6, 0.09, 0.1, 'grille', 5);
    intake.position.copy(frontPoint(intakeY, 0, 0.04));
    group.add(intake);
  }
  return grilleH;
}

/** The plate holder and the plate at height y of the front or the tail; returns the plate face's corners (Vehicle.plates). */
export function addPlate(group: THREE.Group, ends: EndSurfaces, front: boolean, y: number): THREE.Vector3[] {
  const { frontPoint, rearPoint } = ends;
  const plateW = 0.52;
  const plateH = 0.11;
  const pick = front ? frontPoint : rearPoint;
  let x = front ? -Infinity : Infinity;
  for (const yy of [y - plateH / 2, y + plateH / 2]) {
    for (const zz of [-plateW / 2, 0, plateW / 2]) {
      const q = pick(yy, zz, 0);
      x = front ? Math.max(x, q.x) : Math.min(x, q.x);
    }
  }
  const dir = front ? 1 : -1;
  const holder = roundedSlab(plateW + 0.04, plateH + 0.04, 0.06, 'trim', 8);
  holder.position.set(x - dir * 0.01, y, 0);
  group.add(holder);
  const faceX = x + dir * 0.022;
  const plate = new THREE.BoxGeometry(0.012, plateH, plateW);
  plate.translate(faceX - dir * 0.006, y, 0);
  group.add(tagged(plate, 'plate'));
  // corners as seen from outside: front plate viewed from +X has screen-right = -Z
  const zl = front ? plateW / 2 : -plateW / 2; // viewer's left
  return [
    new THREE.Vector3(faceX, y + plateH / 2, zl),
    new THREE.Vector3(faceX, y + plateH / 2, -zl),
    new THREE.Vector3(faceX, y - plateH / 2, -zl),
    new THREE.Vector3(faceX, y - plateH / 2, zl),
  ];
}

/** Tail lights (and, on tall tails, lamp clusters up the body's corners) and reflectors; returns the tail lights' height. */
export function addTail(group: THREE.Group, p: VehicleParams, body: BodyShape, ends: EndSurfaces): number {
  const { rearPoint, yawAt } = ends;
  const L = p.length;
  const tailY = p.tailTop - 0.1;
  for (const s of [1, -1]) {
    const z = s * (p.width / 2 - 0.06 - 0.14);
    const n = yawAt(tailY, z, false);
    const tl = roundedSlab(0.3, 0.1, 0.08, 'taillight', 5);
    tl.position.copy(rearPoint(tailY, z, 0.012));
    tl.rotation.y = Math.atan2(-n.z, n.x) + Math.PI;
    group.add(tl);
    if (p.style === 'van' || p.style === 'suv' || p.style === 'estate') {
      // tall lamp cluster running up the D pillar / body corner
      const ty = tailY + 0.13;
      const tz = s * Math.max(0.3, body.halfWidthAt(L - 0.2, ty) - 0.09);
      const tall = roundedSlab(0.09, 0.3, 0.07, 'taillight', 5);
      tall.position.copy(rearPoint(ty, tz, 0.012));
      group.add(tall);
    }
    // reflector low on the bumper
    const refl = roundedSlab(0.12, 0.03, 0.04, 'taillight', 5);
    refl.position.copy(rearPoint(p.clearance + 0.16, s * (p.width / 2 - 0.22), 0.008));
    group.add(refl);
  }
  return tailY;
}

/** The rear bumper's diffuser. */
export function addDiffuser(group: THREE.Group, p: VehicleParams, ends: EndSurfaces): void {
  const { rearPoint } = ends;
  const dif = roundedSlab(p.width * 0.7, 0.07, 0.08, 'trim', 5);
  dif.position.copy(rearPoint(p.clearance + 0.07, 0, 0.03));
  group.add(dif);
}
