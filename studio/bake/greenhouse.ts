/**
 * The greenhouse: its shape (a superellipse loft on the body's top line between the windscreen's foot
 * and the rear glass's), the loft itself with glass, roof and pillars told apart per quad, and the
 * cabin seen through the glass (seats, dashboard, steering wheel). Coordinates as in model.ts.
 */
import * as THREE from 'three';
import type { VehicleParams } from './styles.ts';
import { type BodyShape, gridGeometry, pchip, samplesWith } from './body-shape.ts';
import { roundedSlab, tagged } from './parts.ts';

/** Where the greenhouse runs along the body (u, metres from the nose) and its height and half width there. */
export interface GreenhouseShape {
  /** The windscreen's foot and top, the rear glass's top and foot. */
  uA0: number;
  uA1: number;
  uC1: number;
  uC0: number;
  /** uC0 − uA0. */
  span: number;
  /** Its height above its base at the roof's middle. */
  hTotal: number;
  /** Height above the base at u. */
  gh: (u: number) => number;
  /** Its base (a little below the body's top line) at u. */
  ghBase: (u: number) => number;
  /** Its half width at its base at u. */
  ghHalf: (u: number) => number;
}

export function greenhouseShape(p: VehicleParams, body: BodyShape): GreenhouseShape {
  const uA0 = p.bonnet;
  const uA1 = uA0 + p.windscreen;
  const uC1 = uA1 + p.roof;
  const uC0 = uC1 + p.backlight;
  const embed = 0.045;
  const hTotal = p.height - (p.belt - embed);
  const roofMid = (uA1 + uC1) / 2;
  const gPts: Array<[number, number]> = [
    [uA0, 0],
    [uA0 + p.windscreen * 0.5, hTotal * 0.62],
    [uA1, hTotal * 0.965],
    [roofMid, hTotal],
    [uC1, hTotal * 0.965],
    [uC1 + p.backlight * 0.5, hTotal * (0.5 + 0.25 * p.fastback)],
    [uC0, 0],
  ];
  const gh = pchip(gPts);
  const ghBase = (u: number) => body.top(u) - embed;
  const ghHalf = (u: number) => Math.max(0.05, body.halfWidthAt(u, ghBase(u)) - 0.012);
  return { uA0, uA1, uC1, uC0, span: uC0 - uA0, hTotal, gh, ghBase, ghHalf };
}

/** The greenhouse loft and its inside (roof lining, pillars). */
export function addGreenhouse(group: THREE.Group, p: VehicleParams, body: BodyShape, g: GreenhouseShape): void {
  const { uA0, uA1, uC1, uC0, span, hTotal, gh, ghBase, ghHalf } = g;
  const N_GH = 5.5;
  const phiS = (58 * Math.PI) / 180;
  const delta = (9 * Math.PI) / 180;
  const phiB = (4 * Math.PI) / 180;
  const ghPhis = samplesWith(0, Math.PI, Math.PI / 120, [phiB, phiS - delta, phiS, Math.PI - phiS, Math.PI - phiS + delta, Math.PI - phiB]);
  const winEdges: number[] = [uA1, uC1];
  for (const [a, b] of p.sideWindows) winEdges.push(uA0 + a * span, uA0 + b * span);
  // Where the rear glass begins (height fraction), as an exact row.
  const ghU = samplesWith(uA0, uC0, 0.012, winEdges);
  const ghPoint = (u: number, phi: number, out: THREE.Vector3) => {
    const w = ghHalf(u);
    const hh = gh(u);
    const c = Math.cos(phi);
    const s = Math.sin(phi);
    const yv = Math.pow(Math.abs(s), 2 / N_GH);
    const zn = Math.sign(c) * Math.pow(Math.abs(c), 2 / N_GH);
    const tumble = 1 - p.tumble * yv;
    return out.set(body.x(u), ghBase(u) + hh * yv, w * zn * tumble);
  };
  const greenhouse = gridGeometry(
    ghU.length,
    ghPhis.length,
    false,
    (i, j, out) => ghPoint(ghU[i]!, ghPhis[j]!, out),
    (i, j) => {
      const u = (ghU[i]! + ghU[i + 1]!) / 2;
      const phi = (ghPhis[j]! + ghPhis[j + 1]!) / 2;
      const q = gh(u) / hTotal;
      const side = phi < phiS - delta || phi > Math.PI - phiS + delta;
      const frame = !side && (phi < phiS || phi > Math.PI - phiS);
      if (frame) return 'paint';
      if (side) {
        if (phi < phiB || phi > Math.PI - phiB) return 'paint';
        const f = (u - uA0) / span;
        for (const [a, b] of p.sideWindows) if (f > a && f < b) return 'glass';
        return 'paint';
      }
      if (u < uA1) return q > 0.04 ? 'glass' : 'paint';
      if (u < uC1) return 'paint';
      return q > Math.max(0.04, p.backGlassMin) ? 'glass' : 'paint';
    },
  );
  group.add(tagged(greenhouse.geometry, greenhouse.tags));
  // Its inside (roof lining, pillars), seen through the glass; the panes themselves are not repeated.
  const ghInside = tagged(greenhouse.geometry, greenhouse.tags.map((t) => (t === 'glass' ? 'none' : 'cabin')));
  ghInside.userData.side = 'back';
  group.add(ghInside);
}

/** Seats, dashboard and steering wheel: silhouettes through the tinted glass. */
export function addCabin(group: THREE.Group, p: VehicleParams, body: BodyShape, g: GreenhouseShape): void {
  const { uA0, uA1, uC1, gh, ghBase, ghHalf } = g;
  const roofY = (u: number) => ghBase(u) + gh(u);
  const seat = (u: number, z: number, w: number) => {
    const x = body.x(u);
    const lean = 0.16;
    const y0 = p.belt - 0.36;
    const y1 = p.belt + 0.45 * (roofY(u) - p.belt);
    const back = roundedSlab(w, y1 - y0, 0.12, 'cabin', 4);
    back.position.set(x, (y0 + y1) / 2, z);
    back.rotation.z = lean;
    group.add(back);
    const cushion = roundedSlab(w, 0.13, 0.5, 'cabin', 4);
    cushion.position.set(x + 0.27, y0 + 0.02, z);
    group.add(cushion);
    // headrests lean back with the seat and stay under the roof where they end up
    const uH = u + Math.sin(lean) * ((y1 - y0) / 2 + 0.1);
    const yH = Math.min(p.belt + 0.66 * (roofY(uH) - p.belt), roofY(uH) - 0.12);
    const heads = w > 0.7 ? [-w * 0.33, 0, w * 0.33] : [0];
    for (const dz of heads) {
      const head = roundedSlab(0.25, 0.16, 0.1, 'cabin', 4);
      head.position.set(body.x(uH), yH, z + dz);
      head.rotation.z = lean;
      group.add(head);
    }
  };
  const uF0 = uA1 + Math.min(0.42, p.roof * 0.35);
  const zSeat = Math.min(0.38, ghHalf(uF0) * 0.46);
  seat(uF0, zSeat, 0.5);
  seat(uF0, -zSeat, 0.5);
  if (p.style !== 'van') {
    const uR0 = Math.min(uF0 + 0.85, uC1 + 0.35 * p.backlight - 0.1);
    if (uR0 - uF0 > 0.55) seat(uR0, 0, Math.min(1.3, ghHalf(uR0) * 1.5));
  } else {
    // the bulkhead behind the cab
    const uB = uF0 + 0.35;
    const bh = roundedSlab(ghHalf(uB) * 1.9, roofY(uB) - p.belt + 0.4, 0.04, 'cabin', 6);
    bh.position.set(body.x(uB), p.belt + (roofY(uB) - p.belt - 0.4) / 2, 0);
    group.add(bh);
  }
  const uD = uA0 + p.windscreen * 0.45;
  const dash = roundedSlab(ghHalf(uD) * 2 - 0.06, 0.2, 0.5, 'cabin', 5);
  dash.position.set(body.x(uD) + 0.05, p.belt - 0.04, 0);
  group.add(dash);
  const ringG = new THREE.TorusGeometry(0.185, 0.022, 10, 40);
  ringG.rotateY(Math.PI / 2);
  ringG.rotateZ(-0.45);
  const ring = tagged(ringG, 'cabin');
  ring.position.set(body.x(uD) - 0.28, p.belt + 0.02, -zSeat);
  group.add(ring);
}
