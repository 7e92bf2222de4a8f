/**
 * What the studio baker shoots: a three.js scene of one vehicle whose meshes carry roles. Both sources
 * produce it: the procedural styles (procedural.ts) and glTF 2.0 files (gltf/). The baker (bake.ts) knows
 * nothing else about where a subject came from; `source` is copied into set.json for people.
 */
import type * as THREE from 'three';

/**
 * The part a mesh plays in the shot. The baker picks materials by role: `paint` gets the studio's
 * clear-coat paint (neutral paint in the base pass, white/black albedo in the light passes), `glass`
 * a tinted, reflective, partly transparent glass; `plate` the blank evenly lit white plate; `hide`
 * is not drawn at all (badges, logos, ground planes). Every other role keeps the mesh's own material
 * in the base pass and is drawn as an occluder (writes 0,0,0,0) in the light passes.
 */
export const ROLES = ['paint', 'glass', 'tyre', 'rim', 'lamp', 'trim', 'chrome', 'plate', 'interior', 'hide', 'other'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

export interface SubjectSource {
  kind: 'procedural' | 'gltf';
  /** For people: style or file name, licence, credit. */
  note?: string;
  [k: string]: unknown;
}

/**
 * Optional per-mesh shader patch (`mesh.userData.studioPatch`), applied by the baker to every material
 * it puts on that mesh in every pass (studio paint, glass, plate, occluders). The procedural styles use
 * it for the wheel-arch cut and the per-pixel paint/trim split; the mesh's own material (base pass) must
 * already carry it. `key` names the patch (materials are cached per key); `apply` may set
 * `onBeforeCompile` and `customProgramCacheKey`.
 */
export interface MaterialPatch {
  key: string;
  apply(material: THREE.Material): void;
}

/**
 * Per-mesh data the baker reads (`mesh.userData`):
 * - `role: Role`: required (or `roles` for a mesh whose material is an array: one role per material
 *   index; `hide` there leaves that group undrawn);
 * - `studioPatch?: MaterialPatch`;
 * - `castsShadow?: boolean`: false leaves the mesh out of the contact shadow (default: every drawn mesh
 *   casts one).
 */
export interface StudioMeshData {
  role?: Role;
  roles?: Role[];
  studioPatch?: MaterialPatch;
  castsShadow?: boolean;
}

export interface StudioSubject {
  /**
   * The vehicle, normalised: metres, +Y up, nose towards +X, the car's right side towards +Z, wheels
   * standing on y = 0, centred on x = z = 0. Every mesh has `userData.role: Role` (see StudioMeshData).
   */
  group: THREE.Group;
  /** Plate face corners, top-left, top-right, bottom-right, bottom-left as seen from outside; null = none. */
  plates: { front: THREE.Vector3[] | null; rear: THREE.Vector3[] | null };
  /** Bounding size of the car (hidden parts excluded), metres. */
  size: { length: number; width: number; height: number };
  source: SubjectSource;
  /**
   * Optional: a string that identifies the subject's content (e.g. a hash of the glTF file and its role
   * map, or the procedural parameters). It goes into the set's revision; when absent the baker hashes
   * the geometry, the roles and `source`.
   */
  fingerprint?: string;
}
