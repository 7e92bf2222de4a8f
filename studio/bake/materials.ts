/**
 * Materials of the bake passes, chosen by a mesh's role (subject.ts):
 * - `base`: the finished studio shot. `paint` is the studio clear-coat paint in the neutral colour,
 *   `glass` tinted reflective glass that lets the cabin (and the backdrop) show through, `plate` the blank
 *   evenly lit white plate (linear 0.8); every other role keeps the mesh's own material.
 * - `white` / `black`: only the paint is drawn (white or black albedo); everything else is an occluder
 *   writing (0,0,0,0), so the alpha of the `white` pass is the anti-aliased paint mask.
 * - `occlude`: the whole car as an occluder, for the shadow pass.
 * `hide` is never drawn. Procedural own materials (`ownMaterial`) and the wheel-arch cut live here too.
 */
import * as THREE from 'three';
import type { MaterialPatch, Role } from './subject.ts';

export type Pass = 'base' | 'white' | 'black' | 'occlude';

export function srgb(hex: string): THREE.Color {
  return new THREE.Color().setStyle(hex, THREE.SRGBColorSpace);
}

/** The studio paint: clear-coated, so the softbox strips read as crisp reflections. */
export function studioPaint(color: THREE.Color): THREE.Material {
  return new THREE.MeshPhysicalMaterial({
    color,
    metalness: 0,
    roughness: 0.32,
    clearcoat: 1,
    clearcoatRoughness: 0.04,
    envMapIntensity: 1,
  });
}

/**
 * Tinted glass: the reflections (and the little diffuse light of the dark tint) are added in full, what
 * lies behind is kept at (1 − opacity): premultiplied "over" without premultiplying the reflections, so
 * a pane reflects like glass and still lets the cabin show. Alpha accumulates as coverage.
 */
export const GLASS_OPACITY = 0.55;

/**
 * Glass blending, colour and alpha alike: what lies behind is kept at (1 − opacity), and the pane's own
 * colour is added in full (`One`: its reflections are not scaled by its opacity) or not at all (`Zero`).
 */
function keepBehind<M extends THREE.Material>(m: M, own: THREE.BlendingSrcFactor): M {
  m.blending = THREE.CustomBlending;
  m.blendEquation = m.blendEquationAlpha = THREE.AddEquation;
  m.blendSrc = m.blendSrcAlpha = own;
  m.blendDst = m.blendDstAlpha = THREE.OneMinusSrcAlphaFactor;
  return m;
}

export function studioGlass(): THREE.Material {
  const m = new THREE.MeshPhysicalMaterial({
    color: srgb('#1c2427'),
    roughness: 0.03,
    metalness: 0,
    clearcoat: 1,
    clearcoatRoughness: 0.02,
    transparent: true,
    opacity: GLASS_OPACITY,
    depthWrite: false,
    side: THREE.DoubleSide,
  });
  return keepBehind(m, THREE.OneFactor);
}

/**
 * The glass of the light passes: draws nothing of its own, only keeps (1 − opacity) of what lies behind,
 * colour and alpha alike, as the base's glass does. So paint seen through a window counts as paint at
 * that reduced coverage, and the compositor recolours it instead of leaving the neutral paint there.
 */
export function glassShade(): THREE.Material {
  const m = new THREE.MeshBasicMaterial({ color: 0x000000, transparent: true, opacity: GLASS_OPACITY, depthWrite: false, side: THREE.DoubleSide });
  return keepBehind(m, THREE.ZeroFactor);
}

/** Blank, evenly lit white plate: linear 0.8 (sRGB ~230), as the compositor expects. */
export function studioPlate(): THREE.Material {
  return new THREE.MeshBasicMaterial({ color: new THREE.Color(0.8, 0.8, 0.8) });
}

export function occluder(): THREE.Material {
  const m = new THREE.MeshBasicMaterial({ color: 0x000000, opacity: 0, transparent: false });
  m.blending = THREE.NoBlending;
  return m;
}

function hidden(): THREE.Material {
  const m = new THREE.MeshBasicMaterial();
  m.visible = false;
  return m;
}

/**
 * The materials of one pass, cached per (role, side, patch). `own` is the mesh's own material (base pass
 * of roles other than paint/glass/plate); its `side` is kept for the occluders, so a back-face interior
 * shell occludes as it draws.
 */
export class StudioMaterials {
  private cache = new Map<string, THREE.Material>();
  constructor(
    readonly pass: Pass,
    private readonly neutralPaint: string,
  ) {}

  get(role: Role, own: THREE.Material | undefined, patch: MaterialPatch | undefined): THREE.Material {
    if (role === 'hide') return this.cached('hide', hidden);
    const studioRole = role === 'paint' || role === 'glass' || role === 'plate';
    if (this.pass === 'base' && !studioRole) return own ?? this.cached('fallback', () => new THREE.MeshStandardMaterial({ color: 0x202124 }));
    const side = own?.side ?? THREE.FrontSide;
    let kind: string;
    if (this.pass === 'base') kind = role;
    else if ((this.pass === 'white' || this.pass === 'black') && role === 'paint') kind = 'paint';
    else if ((this.pass === 'white' || this.pass === 'black') && role === 'glass') kind = 'glassShade';
    else kind = 'occluder';
    const double = kind === 'glass' || kind === 'glassShade';
    const key = `${kind}|${double ? 'double' : side}|${patch?.key ?? ''}`;
    return this.cached(key, () => {
      const m = this.make(kind);
      if (!double) m.side = side;
      patch?.apply(m);
      return m;
    });
  }

  private make(kind: string): THREE.Material {
    switch (kind) {
      case 'paint':
        return studioPaint(this.pass === 'base' ? srgb(this.neutralPaint) : this.pass === 'white' ? new THREE.Color(1, 1, 1) : new THREE.Color(0, 0, 0));
      case 'glass':
        return studioGlass();
      case 'glassShade':
        return glassShade();
      case 'plate':
        return studioPlate();
      default:
        return occluder();
    }
  }

  private cached(key: string, make: () => THREE.Material): THREE.Material {
    let m = this.cache.get(key);
    if (!m) this.cache.set(key, (m = make()));
    return m;
  }

  dispose(): void {
    for (const m of this.cache.values()) m.dispose();
    this.cache.clear();
  }
}

// ---------------------------------------------------------------------------------------------------
// Procedural styles: their own materials (base pass of the non-studio roles) and the wheel-arch cut.

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
