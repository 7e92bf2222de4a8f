/**
 * Materials per bake pass. `base` is the finished studio shot; `white`/`black` draw only the paint
 * (white or black albedo) with everything else as an occluder that writes (0,0,0,0), so the alpha of
 * the `white` pass is the anti-aliased paint mask; `occlude` hides the car for the shadow pass.
 */
import * as THREE from 'three';
import type { ArchCut, Tag } from './model.ts';

export type Pass = 'base' | 'white' | 'black' | 'occlude';

function srgb(hex: string): THREE.Color {
  return new THREE.Color().setStyle(hex, THREE.SRGBColorSpace);
}

function paint(color: THREE.Color): THREE.Material {
  return new THREE.MeshPhysicalMaterial({
    color,
    metalness: 0,
    roughness: 0.32,
    clearcoat: 1,
    clearcoatRoughness: 0.04,
    envMapIntensity: 1,
  });
}

function occluder(): THREE.Material {
  const m = new THREE.MeshBasicMaterial({ color: 0x000000, opacity: 0, transparent: false });
  m.blending = THREE.NoBlending;
  return m;
}

function realMaterial(tag: Tag, basePaint: string): THREE.Material {
  switch (tag) {
    case 'paint':
      return paint(srgb(basePaint));
    case 'glass':
      return new THREE.MeshPhysicalMaterial({ color: srgb('#0d1014'), roughness: 0.03, metalness: 0, clearcoat: 1, clearcoatRoughness: 0.02 });
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
    case 'plate':
      // blank, evenly lit white plate: linear 0.8 (sRGB ~230), as the compositor expects
      return new THREE.MeshBasicMaterial({ color: new THREE.Color(0.8, 0.8, 0.8) });
    case 'interior':
      return new THREE.MeshBasicMaterial({ color: new THREE.Color(0.012, 0.012, 0.013) });
    case 'liner':
      return new THREE.MeshStandardMaterial({ color: srgb('#17181a'), roughness: 0.9, metalness: 0 });
  }
}

/** Injects the wheel-arch cut: fragments of the body's sides inside the arch circles are discarded. */
function withArchCut(m: THREE.Material, arch: ArchCut, clip: 'above' | 'below' | null): THREE.Material {
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
  return m;
}

export class PassMaterials {
  private cache = new Map<string, THREE.Material>();
  constructor(
    private readonly pass: Pass,
    private readonly basePaint: string,
    private readonly arch: ArchCut,
  ) {}

  get(tag: Tag, opts: { cut: boolean; back: boolean; clip?: 'above' | 'below' | null }): THREE.Material {
    const clip = opts.clip ?? null;
    const key = `${tag}|${opts.cut}|${opts.back}|${clip}`;
    let m = this.cache.get(key);
    if (m) return m;
    m = this.make(tag, opts.back);
    if (opts.back) m.side = THREE.BackSide;
    if (opts.cut || clip) m = withArchCut(m, this.arch, clip);
    this.cache.set(key, m);
    return m;
  }

  private make(tag: Tag, back: boolean): THREE.Material {
    switch (this.pass) {
      case 'base':
        return realMaterial(back ? 'interior' : tag, this.basePaint);
      case 'white':
        return tag === 'paint' && !back ? paint(new THREE.Color(1, 1, 1)) : occluder();
      case 'black':
        return tag === 'paint' && !back ? paint(new THREE.Color(0, 0, 0)) : occluder();
      case 'occlude':
        return occluder();
    }
  }

  /** Puts this pass's materials on every mesh of the car. */
  apply(root: THREE.Object3D): void {
    root.traverse((o) => {
      const mesh = o as THREE.Mesh;
      if (!mesh.isMesh || !mesh.userData.tag && !mesh.userData.tags) return;
      const cut = mesh.userData.archCut === true;
      const back = mesh.userData.side === 'back';
      const clip = (mesh.userData.clip ?? null) as 'above' | 'below' | null;
      if (Array.isArray(mesh.userData.tags)) {
        mesh.material = (mesh.userData.tags as Tag[]).map((t) => this.get(t, { cut, back, clip }));
      } else {
        mesh.material = this.get(mesh.userData.tag as Tag, { cut, back, clip });
      }
    });
  }

  dispose(): void {
    for (const m of this.cache.values()) m.dispose();
    this.cache.clear();
  }
}
