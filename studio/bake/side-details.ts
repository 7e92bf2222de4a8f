/**
 * The sides and the top: door mirrors, door handles and a pickup's bed liner. Coordinates as in model.ts.
 */
import * as THREE from 'three';
import type { VehicleParams } from './styles.ts';
import type { BodyShape } from './body-shape.ts';
import type { GreenhouseShape } from './greenhouse.ts';
import { ellipsoid, roundedSlab, tagged } from './parts.ts';

/** Door mirrors (painted shell, glass, stalk) at the windscreen's foot. */
export function addMirrors(group: THREE.Group, p: VehicleParams, body: BodyShape, g: GreenhouseShape): void {
  const { uA0, ghBase, ghHalf } = g;
  for (const s of [1, -1]) {
    const u = uA0 + p.windscreen * 0.22;
    const y = ghBase(u) + 0.13;
    const zBody = ghHalf(u);
    const m = ellipsoid(0.075, 0.065, 0.11, 'paint', 32);
    m.position.set(body.x(u) - 0.03, y, s * (zBody + 0.14));
    group.add(m);
    const glassM = roundedSlab(0.015, 0.1, 0.18, 'glass', 5);
    glassM.position.set(body.x(u) - 0.1, y, s * (zBody + 0.14));
    group.add(glassM);
    const stalk = new THREE.BoxGeometry(0.06, 0.03, 0.12);
    stalk.translate(body.x(u) - 0.02, y - 0.03, s * (zBody + 0.05));
    group.add(tagged(stalk, 'trim'));
  }
}

/** Door handles: thin bright strips just proud of the side. */
export function addHandles(group: THREE.Group, p: VehicleParams, body: BodyShape, g: GreenhouseShape): void {
  const { uA0, span } = g;
  const yHandle = p.belt - 0.1;
  const handleUs = p.style === 'coupe' ? [uA0 + span * 0.55] : p.style === 'van' ? [uA0 + span * 0.13] : [uA0 + span * 0.35, uA0 + span * 0.7];
  for (const u of handleUs) {
    for (const s of [1, -1]) {
      const zb = body.halfWidthAt(u, yHandle);
      const h = roundedSlab(0.16, 0.03, 0.025, 'chrome', 5);
      h.position.set(body.x(u), yHandle, s * (zb + 0.004));
      group.add(h);
    }
  }
}

/** A pickup's bed liner, just above the deck it covers (styles with `bed`). */
export function addBed(group: THREE.Group, p: VehicleParams, body: BodyShape, g: GreenhouseShape): void {
  const { uC0 } = g;
  const L = p.length;
  if (p.bed) {
    const u0 = uC0 + 0.07;
    const u1 = L - 0.07;
    const um = (u0 + u1) / 2;
    // the liner's top just above the highest point of the deck it covers
    let top = 0;
    for (let k = 0; k <= 20; k++) top = Math.max(top, body.top(u0 + ((u1 - u0) * k) / 20));
    top += 0.006;
    const hw = body.halfWidthAt(um, top - 0.035) - 0.05;
    const bed = new THREE.BoxGeometry(u1 - u0, 0.07, hw * 2);
    bed.translate(body.x(um), top - 0.031, 0);
    group.add(tagged(bed, 'liner'));
  }
}
