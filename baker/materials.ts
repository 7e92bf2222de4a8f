/**
 * Materials of the bake passes, chosen by a mesh's role (subject.ts):
 * - `base`: the finished studio shot. `paint` is the studio clear-coat paint in the neutral colour,
 *   `glass` tinted reflective glass that lets the cabin (and the backdrop) show through, `plate` the blank
 *   evenly lit white plate (linear 0.8); every other role keeps the mesh's own material.
 * - `white` / `black`: only the paint is drawn (white or black albedo); everything else is an occluder
 *   writing (0,0,0,0), so the alpha of the `white` pass is the anti-aliased paint mask.
 * - `occlude`: the whole car as an occluder, for the shadow pass.
 * `hide` is never drawn. The procedural styles' own materials and wheel-arch cut are the studio's
 * (studio/bake/own-materials.ts).
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

export function hidden(): THREE.Material {
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
