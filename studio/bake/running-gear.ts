/**
 * The running gear: the four wheels standing in their arches, the arch cut the body's shader makes
 * (ArchCut), the dark wells behind the tyres and, on styles with cladding, black arch flares.
 * Coordinates as in model.ts.
 */
import * as THREE from 'three';
import type { ArchCut } from './own-materials.ts';
import type { VehicleParams } from './styles.ts';
import type { BodyShape } from './body-shape.ts';
import { tagged, wheel } from './parts.ts';

/** Adds wheels, wells and flares; returns the arch cut (`clipY`: where the body's paint gives way to trim). */
export function addRunningGear(group: THREE.Group, p: VehicleParams, body: BodyShape, clipY: number): ArchCut {
  const L = p.length;
  const over = L - p.wheelbase;
  const uF = over * p.frontShare;
  const uR = uF + p.wheelbase;
  const R = p.wheelRadius;
  // The arch stays under the body's top line over the axles (a low nose over a big wheel, the coupe,
  // would otherwise have its fender cut through).
  const archR = Math.max(R + 0.03, Math.min(R + 0.065, ...[uF, uR].map((u) => body.top(u) - 0.08 - R)));
  // The tyre's outer face sits just inside the body's side around the top of the arch (the lip), so the
  // wheels stand in the arches instead of outside the body; lower down they may bulge past the sills.
  const wheelZ = (u: number) => {
    let hw = p.width / 2;
    for (let k = 0; k <= 6; k++) {
      const y = R + archR * (0.45 + 0.5 * (k / 6));
      for (const du of [-0.25, 0, 0.25]) {
        const h = body.halfWidthAt(u + du * archR, y);
        if (h > 0) hw = Math.min(hw, h);
      }
    }
    return Math.min(p.width / 2 - 0.035, hw - 0.012) - p.tyreWidth / 2;
  };
  for (const u of [uF, uR]) {
    const zW = wheelZ(u);
    for (const sideSign of [1, -1]) {
      const w = wheel(p);
      w.position.set(body.x(u), R, sideSign * zW);
      if (sideSign < 0) w.rotation.y = Math.PI;
      group.add(w);
    }
  }
  const arch: ArchCut = {
    centers: [
      [body.x(uF), R],
      [body.x(uR), R],
    ],
    radius: archR,
    zCut: p.width / 2 - 0.42,
    clipY,
  };
  // Dark wheel wells behind the tyres (so the arch never shows the far side of the car).
  for (const u of [uF, uR]) {
    for (const sideSign of [1, -1]) {
      const wellG = new THREE.CylinderGeometry(arch.radius - 0.005, arch.radius - 0.005, 0.02, 48);
      wellG.rotateX(Math.PI / 2);
      const well = tagged(wellG, 'interior');
      well.position.set(body.x(u), R, sideSign * (p.width / 2 - 0.4));
      group.add(well);
    }
  }

  // Black arch flares (SUV, pickup, van): half rings around the arches, just proud of the side.
  if (p.cladding > 0) {
    for (const [cx] of arch.centers) {
      for (const sideSign of [1, -1]) {
        const u = L / 2 - cx;
        const ySide = R + arch.radius * 0.5;
        const zs = Math.max(body.halfWidthAt(u, ySide), body.halfWidthAt(u, R));
        const flare = new THREE.TorusGeometry(arch.radius + 0.035, 0.05, 10, 48, Math.PI);
        flare.scale(1, 1, 0.5);
        flare.translate(cx, R, sideSign * (zs - 0.01));
        group.add(tagged(flare, 'trim'));
      }
    }
  }
  return arch;
}
