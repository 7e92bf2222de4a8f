/**
 * What a glTF set keeps so its spin frames can be shot again and their geometry found by projection
 * (set.json `source.spin`, docs/asset-format.md "The 3D source"), found at bake time from the subject:
 * how the model was normalised, the turntable rig, the convex-hull outline and the plates.
 */
import * as THREE from 'three';
import { ConvexHull } from 'three/examples/jsm/math/ConvexHull.js';
import type { SpinSourceJson } from '../../shared/asset-format/set-json.ts';
import type { Vec3 } from '../../shared/asset-format/read-set.ts';
import { ALL_SPIN_YAWS } from '../../shared/spin.ts';
import type { GltfSubject } from '../gltf/subject.ts';
import { axisLabel } from '../gltf/normalise.ts';
import { collectPoints } from '../shoot.ts';
import { outlineBounds, rigCamera, type SpinRig } from './geometry.ts';

/** The views' field of view. */
export const SPIN_FOV = 24;
/**
 * One camera height for every frame: between the views' 4° (sides) and 11° (three-quarter views), so
 * the roof reads at the corners and the sides are not looked down on.
 */
export const SPIN_ELEVATION_DEGREES = 8;
/** The views' fitting rule: the car fills this much of the width or the height, whichever binds. */
const FILL = { x: 0.86, y: 0.78 };
/** The frame the rig is fitted in (16:9, as the views and the frame cache's widths). */
const FIT_W = 1600;
const FIT_H = 900;

/** Metres rounded to 0.1 mm, as set.json keeps them. */
const mm10 = (v: number) => Math.round(v * 10000) / 10000 || 0;
const vec = (v: THREE.Vector3): Vec3 => [mm10(v.x), mm10(v.y), mm10(v.z)];

/** The vertices of the convex hull of the drawn (not hidden) points of the vehicle. */
export function hullOutline(group: THREE.Object3D): Vec3[] {
  const hull = new ConvexHull().setFromPoints(collectPoints(group, 1, Infinity));
  const seen = new Set<string>();
  const out: Vec3[] = [];
  for (const face of hull.faces) {
    let edge = face.edge;
    do {
      const v = vec(edge.head().point);
      const key = v.join(',');
      if (!seen.has(key)) {
        seen.add(key);
        out.push(v);
      }
      edge = edge.next;
    } while (edge !== face.edge);
  }
  return out;
}

/**
 * The turntable rig: fov and elevation fixed, the target the views' (0, 0.45·height, 0), the distance
 * the views' fitting rule at the widest of the 72 yaws (so the car fits every frame), and the vertical
 * lens shift that centres the union of the frames' vertical extents 0.03 low, as frameCamera does.
 */
export function fitRig(outline: readonly Vec3[], height: number): SpinRig {
  const target: Vec3 = [0, mm10(height * 0.45), 0];
  const base = { fov: SPIN_FOV, elevationDegrees: SPIN_ELEVATION_DEGREES, target, shiftY: 0 };
  let distance = 0;
  for (const yaw of ALL_SPIN_YAWS) {
    let d = 12;
    for (let i = 0; i < 8; i++) {
      const b = outlineBounds(outline, rigCamera({ ...base, distance: d }, yaw, FIT_W, FIT_H), FIT_W, FIT_H);
      // pixels to NDC spans: 2·px/size
      const sx = (b.x1 - b.x0) / FIT_W / FILL.x;
      const sy = (b.y1 - b.y0) / FIT_H / FILL.y;
      d *= Math.max(sx, sy);
    }
    distance = Math.max(distance, d);
  }
  distance = mm10(distance);
  let top = Infinity, bottom = -Infinity;
  for (const yaw of ALL_SPIN_YAWS) {
    const b = outlineBounds(outline, rigCamera({ ...base, distance }, yaw, FIT_W, FIT_H), FIT_W, FIT_H);
    top = Math.min(top, b.y0);
    bottom = Math.max(bottom, b.y1);
  }
  // NDC y of the union's middle (pixels y down), and 0.03 below it as the views
  const mid = 1 - (top + bottom) / FIT_H;
  const shiftY = +(mid + 0.03).toFixed(6);
  return { ...base, distance, shiftY };
}

/**
 * The hull vertices that bound the picture at some yaw of the rig (leftmost, rightmost, top or bottom
 * at any whole degree): the projected box at every yaw is the whole hull's, with a few dozen to a few
 * hundred points instead of thousands (a detailed model's hull has about 7000 vertices, 0.5 MB of
 * set.json).
 */
export function boundingHullPoints(hull: readonly Vec3[], rig: SpinRig): Vec3[] {
  const keep = new Set<number>();
  const p = new THREE.Vector3();
  for (let yaw = 0; yaw < 360; yaw++) {
    const cam = rigCamera(rig, yaw, FIT_W, FIT_H);
    let ix0 = 0, ix1 = 0, iy0 = 0, iy1 = 0;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    hull.forEach((v, i) => {
      p.set(v[0], v[1], v[2]).project(cam);
      if (p.x < x0) { x0 = p.x; ix0 = i; }
      if (p.x > x1) { x1 = p.x; ix1 = i; }
      if (p.y < y0) { y0 = p.y; iy0 = i; }
      if (p.y > y1) { y1 = p.y; iy1 = i; }
    });
    keep.add(ix0).add(ix1).add(iy0).add(iy1);
  }
  return [...keep].sort((a, b) => a - b).map((i) => hull[i]!);
}

/** The `source.spin` block of a glTF subject, given where its model and role map are kept in the set. */
export function spinSourceOf(subject: GltfSubject, files: { model: string; roleMap: string | null }): SpinSourceJson {
  const hull = hullOutline(subject.group);
  const rig = fitRig(hull, subject.size.height);
  const outline = boundingHullPoints(hull, rig);
  const plate = (face: GltfSubject['plateFaces']['front']) => {
    if (!face) return null;
    const n = face.normal.clone().normalize();
    return { corners: face.corners.map(vec) as [Vec3, Vec3, Vec3, Vec3], normal: [+n.x.toFixed(6), +n.y.toFixed(6), +n.z.toFixed(6)] as Vec3 };
  };
  return {
    model: files.model,
    role_map: files.roleMap,
    normalisation: {
      up: axisLabel(subject.orientation.up) as SpinSourceJson['normalisation']['up'],
      forward: axisLabel(subject.orientation.forward) as SpinSourceJson['normalisation']['forward'],
      scale: subject.orientation.scale,
      offset: vec(subject.offset),
    },
    rig: { fov: rig.fov, elevation_degrees: rig.elevationDegrees, distance: rig.distance, target: rig.target, shift_y: rig.shiftY },
    outline,
    plates: { front: plate(subject.plateFaces.front), rear: plate(subject.plateFaces.rear) },
  };
}
