/**
 * Procedural vehicle: a lofted lower body (superellipse sections along spline profiles), a separate
 * greenhouse loft (glass, roof and pillars told apart per quad), lathe-turned tyres and rims, wheel
 * arches cut into the body in the fragment shader, lights, grille, mirrors and plate holders.
 * Coordinates: metres, +X forward (nose at +length/2), +Y up (floor at 0), +Z the car's right side.
 * Every mesh carries `userData.tag` (or per-group tags in `userData.tags`); procedural.ts turns them
 * into roles and own materials for the baker. `userData.side === 'back'` marks the insides of shells.
 */
import * as THREE from 'three';
import type { ArchCut, Tag } from './materials.ts';
import type { VehicleParams } from './styles.ts';
import { BodyShape, gridGeometry, pchip, samplesWith } from './body-shape.ts';
import { ellipsoid, roundedSlab, tagged, wheel } from './parts.ts';

export type { ArchCut, Tag } from './materials.ts';

export interface Vehicle {
  group: THREE.Group;
  arch: ArchCut;
  /** Plate face corners in 3D, order: top-left, top-right, bottom-right, bottom-left as seen from outside. */
  plates: { front: THREE.Vector3[]; rear: THREE.Vector3[] };
  params: VehicleParams;
}

export function buildVehicle(p: VehicleParams): Vehicle {
  const body = new BodyShape(p);
  const L = p.length;
  const group = new THREE.Group();
  const v = new THREE.Vector3();

  // ---------- lower body ----------
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

  // ---------- greenhouse ----------
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
  const N_GH = 5.5;
  const phiS = (58 * Math.PI) / 180;
  const delta = (9 * Math.PI) / 180;
  const phiB = (4 * Math.PI) / 180;
  const ghPhis = samplesWith(0, Math.PI, Math.PI / 120, [phiB, phiS - delta, phiS, Math.PI - phiS, Math.PI - phiS + delta, Math.PI - phiB]);
  const winEdges: number[] = [uA1, uC1];
  const span = uC0 - uA0;
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

  // ---------- cabin: seats, dashboard, steering wheel (silhouettes through the tinted glass) ----------
  {
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

  // ---------- wheels ----------
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

  // ---------- front details ----------
  const noseY = p.noseTop;
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
  // ---------- plates ----------
  const plateW = 0.52;
  const plateH = 0.11;
  const mkPlate = (front: boolean, y: number): THREE.Vector3[] => {
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
  };
  const frontPlate = mkPlate(true, Math.max(p.clearance + 0.2, noseY - grilleH - 0.16));

  // ---------- rear details ----------
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
  const rearPlate = mkPlate(false, Math.min(tailY - 0.2, Math.max(p.clearance + 0.33, tailY - 0.26)));
  // rear bumper diffuser
  {
    const dif = roundedSlab(p.width * 0.7, 0.07, 0.08, 'trim', 5);
    dif.position.copy(rearPoint(p.clearance + 0.07, 0, 0.03));
    group.add(dif);
  }

  // ---------- mirrors ----------
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

  // ---------- door handles and shut lines (thin dark strips just proud of the side) ----------
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

  // ---------- pickup bed ----------
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

  return { group, arch, plates: { front: frontPlate, rear: rearPlate }, params: p };
}
