/**
 * The procedural styles' own materials (base pass of the roles the studio does not paint: tyres, rims,
 * lamps, ...) and the wheel-arch cut their lofted bodies need. The pass materials are the baker's
 * (baker/materials.ts).
 */
import * as THREE from 'three';
import { hidden, srgb, studioGlass, studioPaint, studioPlate } from '../../baker/materials.ts';
import type { MaterialPatch } from '../../baker/subject.ts';

/** Procedural part kinds; each maps to a role (procedural.ts) and has its own material here. */
export type Tag =
  | 'paint' | 'glass' | 'tyre' | 'rim' | 'dish' | 'trim' | 'chrome' | 'headlight' | 'taillight'
  | 'grille' | 'plate' | 'interior' | 'cabin' | 'liner' | 'none';

export function ownMaterial(tag: Tag): THREE.Material {
  switch (tag) {
    case 'paint':
      return studioPaint(srgb('#dfe1e4'));
    case 'glass':
      return studioGlass();
    case 'plate':
      return studioPlate();
    case 'tyre':
      return new THREE.MeshStandardMaterial({ color: srgb('#1b1b1c'), roughness: 0.82, metalness: 0 });
    case 'rim':
      return new THREE.MeshStandardMaterial({ color: srgb('#d4d7db'), roughness: 0.2, metalness: 1 });
    case 'dish':
      return new THREE.MeshStandardMaterial({ color: srgb('#3a3d41'), roughness: 0.45, metalness: 0.6 });
    case 'trim':
      return new THREE.MeshStandardMaterial({ color: srgb('#1c1d20'), roughness: 0.55, metalness: 0 });
    case 'chrome':
      return new THREE.MeshStandardMaterial({ color: srgb('#e8e8e8'), roughness: 0.08, metalness: 1 });
    case 'headlight':
      return new THREE.MeshPhysicalMaterial({
        color: srgb('#c9d0d8'), roughness: 0.1, metalness: 0.7, clearcoat: 1, clearcoatRoughness: 0.02,
        emissive: srgb('#ffffff'), emissiveIntensity: 0.08,
      });
    case 'taillight':
      return new THREE.MeshPhysicalMaterial({
        color: srgb('#9e0f16'), roughness: 0.12, metalness: 0, clearcoat: 1, clearcoatRoughness: 0.02,
        emissive: srgb('#6a0409'), emissiveIntensity: 0.6,
      });
    case 'grille':
      return new THREE.MeshStandardMaterial({ color: srgb('#0c0d0f'), roughness: 0.35, metalness: 0.3 });
    case 'interior':
      // the inside of the shells: seen through the arches and the glass
      return new THREE.MeshBasicMaterial({ color: new THREE.Color(0.012, 0.012, 0.013) });
    case 'cabin':
      // seats, dashboard: dark, a little shading so their silhouettes read through the glass
      return new THREE.MeshStandardMaterial({ color: srgb('#3a3b3e'), roughness: 0.8, metalness: 0 });
    case 'liner':
      return new THREE.MeshStandardMaterial({ color: srgb('#17181a'), roughness: 0.9, metalness: 0 });
    case 'none':
      return hidden();
  }
}

export interface ArchCut {
  /** Wheel centres (x, y) of the front and rear axle. */
  centers: [number, number][];
  radius: number;
  /** Only surfaces farther than this from the centre plane are cut. */
  zCut: number;
  /** Height that splits the lower body into paint (above) and black trim (below), per pixel. */
  clipY: number;
}

/** Injects the wheel-arch cut: fragments of the body's sides inside the arch circles are discarded. */
export function applyArchCut(m: THREE.Material, arch: ArchCut, clip: 'above' | 'below' | null): void {
  const c0 = arch.centers[0]!;
  const c1 = arch.centers[1]!;
  const mode = clip === 'above' ? 1 : clip === 'below' ? -1 : 0;
  m.onBeforeCompile = (shader) => {
    shader.uniforms.uArchC = { value: new THREE.Vector4(c0[0], c0[1], c1[0], c1[1]) };
    shader.uniforms.uArchP = { value: new THREE.Vector2(arch.radius, arch.zCut) };
    shader.uniforms.uClip = { value: new THREE.Vector2(mode, arch.clipY) };
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', '#include <common>\nvarying vec3 vArchPos;\nvarying vec3 vArchN;')
      .replace('#include <begin_vertex>', '#include <begin_vertex>\nvArchPos = position;\nvArchN = normal;');
    shader.fragmentShader = shader.fragmentShader
      .replace(
        '#include <common>',
        '#include <common>\nvarying vec3 vArchPos;\nvarying vec3 vArchN;\nuniform vec4 uArchC;\nuniform vec2 uArchP;\nuniform vec2 uClip;',
      )
      .replace(
        'void main() {',
        `void main() {
  if (uClip.x > 0.5 && vArchPos.y < uClip.y) discard;
  if (uClip.x < -0.5 && vArchPos.y >= uClip.y) discard;
  if (abs(vArchPos.z) > uArchP.y && normalize(vArchN).y < 0.62) {
    vec2 d0 = vArchPos.xy - uArchC.xy;
    vec2 d1 = vArchPos.xy - uArchC.zw;
    if (dot(d0, d0) < uArchP.x * uArchP.x || dot(d1, d1) < uArchP.x * uArchP.x) discard;
  }`,
      );
  };
  m.customProgramCacheKey = () => 'arch-cut';
}

export function archPatch(arch: ArchCut, clip: 'above' | 'below' | null): MaterialPatch {
  return { key: `arch-${clip ?? 'none'}`, apply: (m) => applyArchCut(m, arch, clip) };
}
