/**
 * What the studio baker shoots: a three.js scene of one vehicle whose meshes carry roles. Both sources
 * produce it: the procedural styles (model.ts) and glTF 2.0 files (gltf/). The baker (bake.ts) knows
 * nothing else about where a subject came from; `source` is copied into set.json for people.
 */
import type * as THREE from 'three';

/**
 * The part a mesh plays in the shot. The baker picks materials by role: `paint` gets the studio's
 * clear-coat paint (neutral paint in the base pass, white/black albedo in the light passes), `glass`
 * a tinted, reflective, partly transparent glass; `plate` the blank evenly lit white plate; `hide`
 * is not drawn at all (badges, logos, ground planes). Every other role keeps the mesh's own material.
 */
export const ROLES = ['paint', 'glass', 'tyre', 'rim', 'lamp', 'trim', 'chrome', 'plate', 'interior', 'hide', 'other'] as const;
export type Role = (typeof ROLES)[number];

export interface SubjectSource {
  kind: 'procedural' | 'gltf';
  /** For people: style or file name, licence, credit. */
  note?: string;
  [k: string]: unknown;
}

export interface StudioSubject {
  /**
   * The vehicle, normalised: metres, +Y up, nose towards +X, the car's right side towards +Z, wheels
   * standing on y = 0, centred on x = z = 0. Every mesh has `userData.role: Role`.
   */
  group: THREE.Group;
  /** Plate face corners, top-left, top-right, bottom-right, bottom-left as seen from outside; null = none. */
  plates: { front: THREE.Vector3[] | null; rear: THREE.Vector3[] | null };
  /** Bounding size of the car (hidden parts excluded), metres. */
  size: { length: number; width: number; height: number };
  source: SubjectSource;
}
