/**
 * The procedural vehicle's small parts: tagged meshes, ellipsoids, rounded slabs (lights, grilles,
 * trim, plate holders) and the wheel (tyre, rim, spokes, hub). Coordinates as in model.ts.
 */
import * as THREE from 'three';
import type { Tag } from './own-materials.ts';
import type { VehicleParams } from './styles.ts';

export function tagged(geometry: THREE.BufferGeometry, tag: Tag | Tag[], archCut = false, clip: 'above' | 'below' | null = null): THREE.Mesh {
  const mesh = new THREE.Mesh(geometry);
  if (Array.isArray(tag)) mesh.userData.tags = tag;
  else mesh.userData.tag = tag;
  mesh.userData.archCut = archCut;
  mesh.userData.clip = clip;
  return mesh;
}

export function ellipsoid(rx: number, ry: number, rz: number, tag: Tag, seg = 40): THREE.Mesh {
  const g = new THREE.SphereGeometry(1, seg, Math.round(seg / 2));
  g.scale(rx, ry, rz);
  return tagged(g, tag);
}

/**
 * A rounded box built as a superellipsoid, for lights, grilles and trim: `w` across the car (Z),
 * `h` up (Y), `depth` along the car (X), so by default it faces forward or backward.
 */
export function roundedSlab(w: number, h: number, depth: number, tag: Tag, n = 6): THREE.Mesh {
  const g = new THREE.SphereGeometry(1, 64, 32);
  const p = g.attributes.position as THREE.BufferAttribute;
  for (let i = 0; i < p.count; i++) {
    const x = p.getX(i);
    const y = p.getY(i);
    const z = p.getZ(i);
    const f = (t: number) => Math.sign(t) * Math.pow(Math.abs(t), 2 / n);
    p.setXYZ(i, (f(x) * depth) / 2, (f(y) * h) / 2, (f(z) * w) / 2);
  }
  g.computeVertexNormals();
  return tagged(g, tag);
}

export function wheel(p: VehicleParams): THREE.Group {
  const R = p.wheelRadius;
  const T = p.tyreWidth;
  const Rr = R * 0.64;
  const g = new THREE.Group();
  // Tyre: lathe around Y, then turned so its axis is Z, outer face towards +Z.
  const prof: THREE.Vector2[] = [];
  const sidewall = (R - Rr) * 0.5;
  prof.push(new THREE.Vector2(Rr, -T / 2 + 0.01));
  prof.push(new THREE.Vector2(Rr + 0.01, -T / 2));
  prof.push(new THREE.Vector2(R - sidewall, -T / 2 - 0.004));
  for (let k = 0; k <= 8; k++) {
    const a = -Math.PI / 2 + (k / 8) * (Math.PI / 2);
    prof.push(new THREE.Vector2(R - 0.035 + 0.035 * Math.cos(a), -T / 2 + 0.035 + 0.035 * Math.sin(a)));
  }
  for (let k = 0; k <= 8; k++) {
    const a = (k / 8) * (Math.PI / 2);
    prof.push(new THREE.Vector2(R - 0.035 + 0.035 * Math.cos(a), T / 2 - 0.035 + 0.035 * Math.sin(a)));
  }
  prof.push(new THREE.Vector2(R - sidewall, T / 2 + 0.004));
  prof.push(new THREE.Vector2(Rr + 0.01, T / 2));
  prof.push(new THREE.Vector2(Rr, T / 2 - 0.01));
  const tyreG = new THREE.LatheGeometry(prof, 72);
  tyreG.rotateX(Math.PI / 2);
  tyreG.scale(1, 1, -1); // lathe's +Y becomes -Z after rotateX; flip so +axial = +Z
  tyreG.computeVertexNormals();
  g.add(tagged(tyreG, 'tyre'));
  // Rim dish (dark) and barrel.
  const face = T / 2 - 0.015;
  const dishProf = [
    new THREE.Vector2(0.0005, face - 0.05),
    new THREE.Vector2(Rr * 0.8, face - 0.06),
    new THREE.Vector2(Rr - 0.012, face - 0.03),
    new THREE.Vector2(Rr, face),
    new THREE.Vector2(Rr + 0.004, face - 0.01),
    new THREE.Vector2(Rr + 0.004, -T / 2 + 0.02),
  ];
  const dishG = new THREE.LatheGeometry(dishProf, 72);
  dishG.rotateX(Math.PI / 2);
  dishG.scale(1, 1, -1);
  dishG.computeVertexNormals();
  g.add(tagged(dishG, 'dish'));
  // Bright lip of the rim.
  const lip = new THREE.TorusGeometry(Rr - 0.008, 0.012, 12, 72);
  lip.translate(0, 0, face - 0.006);
  g.add(tagged(lip, 'rim'));
  // Spokes and hub.
  const spokes = 5;
  for (let k = 0; k < spokes; k++) {
    const len = Rr - 0.075;
    const sg = new THREE.BoxGeometry(0.055, len, 0.03);
    sg.translate(0, 0.06 + len / 2, face - 0.025);
    sg.rotateZ((k / spokes) * Math.PI * 2);
    g.add(tagged(sg, 'rim'));
  }
  const hub = new THREE.CylinderGeometry(0.085, 0.09, 0.04, 36);
  hub.rotateX(Math.PI / 2);
  hub.translate(0, 0, face - 0.02);
  g.add(tagged(hub, 'rim'));
  const cap = new THREE.CylinderGeometry(0.03, 0.03, 0.012, 24);
  cap.rotateX(Math.PI / 2);
  cap.translate(0, 0, face + 0.002);
  g.add(tagged(cap, 'trim'));
  return g;
}
