/**
 * The studio: an environment of long softbox strips in a dark room over a light floor (prefiltered
 * with PMREM), the nine camera positions, and the soft contact shadow on the floor.
 */
import * as THREE from 'three';
import type { ViewId } from '../shared/views.ts';

/** Builds the light room the PMREM environment is made from (radiance values > 1 are the softboxes). */
export function studioEnvironment(renderer: THREE.WebGLRenderer): THREE.Texture {
  const env = new THREE.Scene();
  const basic = (v: number) => new THREE.MeshBasicMaterial({ color: new THREE.Color(v, v, v), side: THREE.DoubleSide });
  const room = new THREE.Mesh(new THREE.BoxGeometry(18, 10, 18), basic(0.045));
  room.position.y = 10 / 2 - 0.75;
  (room.material as THREE.MeshBasicMaterial).side = THREE.BackSide;
  env.add(room);
  const floor = new THREE.Mesh(new THREE.PlaneGeometry(18, 18), basic(0.42));
  floor.rotation.x = -Math.PI / 2;
  floor.position.y = -0.74;
  env.add(floor);
  const strip = (w: number, h: number, v: number, pos: [number, number, number], look: [number, number, number]) => {
    const m = new THREE.Mesh(new THREE.PlaneGeometry(w, h), basic(v));
    m.position.set(...pos);
    m.lookAt(new THREE.Vector3(...look));
    env.add(m);
  };
  // overhead: a wide soft key and two long strips along the car (the lines along the flanks and roof)
  strip(7, 2.4, 3.2, [0, 5.5, 0], [0, 0, 0]);
  strip(9, 0.55, 7.0, [0, 4.6, 2.6], [0, 0, 0.6]);
  strip(9, 0.55, 7.0, [0, 4.6, -2.6], [0, 0, -0.6]);
  // side strips at door height: one crisp line along each flank
  strip(10, 0.45, 4.5, [0, 1.7, 7.5], [0, 1.2, 0]);
  strip(10, 0.45, 4.5, [0, 1.7, -7.5], [0, 1.2, 0]);
  strip(10, 1.4, 1.2, [0, 3.4, 8.0], [0, 0.5, 0]);
  strip(10, 1.4, 1.2, [0, 3.4, -8.0], [0, 0.5, 0]);
  // front and rear fill panels
  strip(3.5, 2.2, 1.6, [8.5, 2.0, 0], [0, 0.6, 0]);
  strip(3.5, 2.2, 1.6, [-8.5, 2.0, 0], [0, 0.6, 0]);
  // corner verticals for the 3/4 views
  for (const [x, z] of [[6, 6], [6, -6], [-6, 6], [-6, -6]] as const) strip(0.8, 4, 2.2, [x, 1.8, z], [0, 1.2, 0]);
  const pmrem = new THREE.PMREMGenerator(renderer);
  const tex = pmrem.fromScene(env, 0.015, 0.1, 60).texture;
  pmrem.dispose();
  return tex;
}

export interface ViewCamera {
  /** Unit direction from the car towards the camera. */
  dir: THREE.Vector3;
  up: THREE.Vector3;
  fov: number;
}

const deg = Math.PI / 180;
/** Unit direction from the car towards a camera at this azimuth and elevation (degrees). */
export function around(azimuthDeg: number, elevationDeg: number): THREE.Vector3 {
  // azimuth 0 = in front of the car (+X), 90 = the car's right side (+Z)
  const a = azimuthDeg * deg;
  const e = elevationDeg * deg;
  return new THREE.Vector3(Math.cos(a) * Math.cos(e), Math.sin(e), Math.sin(a) * Math.cos(e));
}

export const VIEW_CAMERAS: Record<ViewId, ViewCamera> = {
  front_left: { dir: around(-38, 11), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  front: { dir: around(0, 7), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  front_right: { dir: around(38, 11), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  side_right: { dir: around(90, 4), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  rear_right: { dir: around(142, 11), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  rear: { dir: around(180, 7), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  rear_left: { dir: around(-142, 11), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  side_left: { dir: around(-90, 4), up: new THREE.Vector3(0, 1, 0), fov: 24 },
  top_down: { dir: new THREE.Vector3(0, 1, 0), up: new THREE.Vector3(0, 0, 1), fov: 24 },
};

/** Which plate a view shows. */
export function plateFor(view: ViewId): 'front' | 'rear' | null {
  if (view === 'front' || view === 'front_left' || view === 'front_right') return 'front';
  if (view === 'rear' || view === 'rear_left' || view === 'rear_right') return 'rear';
  return null;
}

/**
 * A perspective camera that frames the sample points: the car fills `fill` of the width or height,
 * whichever binds, centred by a lens shift (verticals stay parallel).
 */
export function frameCamera(
  view: ViewCamera,
  points: THREE.Vector3[],
  target: THREE.Vector3,
  width: number,
  height: number,
  fill: { x: number; y: number },
): THREE.PerspectiveCamera {
  const cam = new THREE.PerspectiveCamera(view.fov, width / height, 0.1, 200);
  let dist = 12;
  const bounds = () => {
    cam.position.copy(target).addScaledVector(view.dir, dist);
    cam.up.copy(view.up);
    cam.lookAt(target);
    cam.updateMatrixWorld(true);
    cam.updateProjectionMatrix();
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    const v = new THREE.Vector3();
    for (const p of points) {
      v.copy(p).project(cam);
      x0 = Math.min(x0, v.x); x1 = Math.max(x1, v.x);
      y0 = Math.min(y0, v.y); y1 = Math.max(y1, v.y);
    }
    return { x0, x1, y0, y1 };
  };
  for (let i = 0; i < 8; i++) {
    const b = bounds();
    const sx = (b.x1 - b.x0) / 2 / fill.x;
    const sy = (b.y1 - b.y0) / 2 / fill.y;
    dist *= Math.max(sx, sy);
  }
  const b = bounds();
  const cx = (b.x0 + b.x1) / 2;
  // a little below the middle leaves room for the shadow without crowding the roof
  const cy = (b.y0 + b.y1) / 2 + 0.03;
  cam.setViewOffset(width, height, (cx * width) / 2, (-cy * height) / 2, width, height);
  cam.updateProjectionMatrix();
  return cam;
}

/** Whether the object and all its ancestors are visible (hidden nodes cast no shadow and frame nothing). */
export function isDrawn(o: THREE.Object3D): boolean {
  for (let p: THREE.Object3D | null = o; p; p = p.parent) if (!p.visible) return false;
  return true;
}

export interface ShadowField {
  /** Opacity 0..1, rows from +z to -z, columns from -x to +x. */
  data: Float32Array;
  cols: number;
  rows: number;
  sizeX: number;
  sizeZ: number;
}

function blur(src: Float32Array, cols: number, rows: number, sigmaCells: number): Float32Array {
  const r = Math.max(1, Math.ceil(sigmaCells * 3));
  const k: number[] = [];
  let sum = 0;
  for (let i = -r; i <= r; i++) {
    const w = Math.exp(-(i * i) / (2 * sigmaCells * sigmaCells));
    k.push(w);
    sum += w;
  }
  for (let i = 0; i < k.length; i++) k[i]! /= sum;
  const tmp = new Float32Array(src.length);
  const out = new Float32Array(src.length);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      let acc = 0;
      for (let i = -r; i <= r; i++) {
        const xx = Math.min(cols - 1, Math.max(0, x + i));
        acc += src[y * cols + xx]! * k[i + r]!;
      }
      tmp[y * cols + x] = acc;
    }
  }
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      let acc = 0;
      for (let i = -r; i <= r; i++) {
        const yy = Math.min(rows - 1, Math.max(0, y + i));
        acc += tmp[yy * cols + x]! * k[i + r]!;
      }
      out[y * cols + x] = acc;
    }
  }
  return out;
}

/**
 * The soft contact shadow: the car's lowest surface height per floor cell (rasterised from its
 * triangles), turned into opacity by height and blurred at three scales (tyre contact, ambient
 * occlusion under the body, a broad soft shadow).
 */
export function contactShadow(group: THREE.Object3D, halfX: number, halfZ: number, cell = 0.012): ShadowField {
  const margin = 0.9;
  const sizeX = 2 * (halfX + margin);
  const sizeZ = 2 * (halfZ + margin);
  const cols = Math.ceil(sizeX / cell);
  const rows = Math.ceil(sizeZ / cell);
  const hmin = new Float32Array(cols * rows).fill(Infinity);
  group.updateMatrixWorld(true);
  const a = new THREE.Vector3(), b = new THREE.Vector3(), c = new THREE.Vector3();
  group.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh || !isDrawn(mesh) || mesh.userData.castsShadow === false || mesh.userData.role === 'hide') return;
    const g = mesh.geometry;
    const pos = g.attributes.position as THREE.BufferAttribute;
    const idx = g.index;
    const n = idx ? idx.count : pos.count;
    const m = mesh.matrixWorld;
    for (let t = 0; t < n; t += 3) {
      const i0 = idx ? idx.getX(t) : t, i1 = idx ? idx.getX(t + 1) : t + 1, i2 = idx ? idx.getX(t + 2) : t + 2;
      a.fromBufferAttribute(pos, i0).applyMatrix4(m);
      b.fromBufferAttribute(pos, i1).applyMatrix4(m);
      c.fromBufferAttribute(pos, i2).applyMatrix4(m);
      if (Math.min(a.y, b.y, c.y) > 1.2) continue;
      // to cell coordinates: column from x, row from z (row 0 at +z)
      const ax = (a.x + sizeX / 2) / cell - 0.5, az = (sizeZ / 2 - a.z) / cell - 0.5;
      const bx = (b.x + sizeX / 2) / cell - 0.5, bz = (sizeZ / 2 - b.z) / cell - 0.5;
      const cx = (c.x + sizeX / 2) / cell - 0.5, cz = (sizeZ / 2 - c.z) / cell - 0.5;
      const area = (bx - ax) * (cz - az) - (bz - az) * (cx - ax);
      if (Math.abs(area) < 1e-9) continue;
      const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx))), x1 = Math.min(cols - 1, Math.ceil(Math.max(ax, bx, cx)));
      const z0 = Math.max(0, Math.floor(Math.min(az, bz, cz))), z1 = Math.min(rows - 1, Math.ceil(Math.max(az, bz, cz)));
      for (let zz = z0; zz <= z1; zz++) {
        for (let xx = x0; xx <= x1; xx++) {
          const w0 = ((bx - xx) * (cz - zz) - (bz - zz) * (cx - xx)) / area;
          const w1 = ((cx - xx) * (az - zz) - (cz - zz) * (ax - xx)) / area;
          const w2 = 1 - w0 - w1;
          if (w0 < -1e-6 || w1 < -1e-6 || w2 < -1e-6) continue;
          const y = w0 * a.y + w1 * b.y + w2 * c.y;
          const k = zz * cols + xx;
          if (y < hmin[k]!) hmin[k] = y;
        }
      }
    }
  });
  const amb = new Float32Array(cols * rows);
  const con = new Float32Array(cols * rows);
  const foot = new Float32Array(cols * rows);
  for (let i = 0; i < hmin.length; i++) {
    const h = hmin[i]!;
    if (!Number.isFinite(h)) continue;
    amb[i] = Math.pow(Math.max(0, 1 - h / 0.6), 1.1);
    con[i] = Math.pow(Math.max(0, 1 - h / 0.06), 2);
    foot[i] = 1;
  }
  const A = blur(amb, cols, rows, 0.09 / cell);
  const C = blur(con, cols, rows, 0.022 / cell);
  const F = blur(foot, cols, rows, 0.32 / cell);
  const data = new Float32Array(cols * rows);
  for (let i = 0; i < data.length; i++) {
    const o = 1 - (1 - 0.85 * A[i]!) * (1 - 0.95 * C[i]!) * (1 - 0.45 * F[i]!);
    data[i] = Math.min(0.94, o);
  }
  return { data, cols, rows, sizeX, sizeZ };
}

export function shadowPlane(field: ShadowField): THREE.Mesh {
  const tex = new THREE.DataTexture(field.data, field.cols, field.rows, THREE.RedFormat, THREE.FloatType);
  tex.magFilter = THREE.LinearFilter;
  tex.minFilter = THREE.LinearFilter;
  tex.colorSpace = THREE.NoColorSpace;
  tex.needsUpdate = true;
  const g = new THREE.PlaneGeometry(field.sizeX, field.sizeZ);
  g.rotateX(-Math.PI / 2);
  // PlaneGeometry's v=0 edge lands at +z after the rotation, as the field's row 0.
  const mat = new THREE.ShaderMaterial({
    uniforms: { map: { value: tex } },
    vertexShader: 'varying vec2 vUv; void main(){ vUv = uv; gl_Position = projectionMatrix * modelViewMatrix * vec4(position,1.0); }',
    fragmentShader: 'uniform sampler2D map; varying vec2 vUv; void main(){ float o = texture2D(map, vUv).r; gl_FragColor = vec4(o, o, o, 1.0); }',
  });
  return new THREE.Mesh(g, mat);
}
