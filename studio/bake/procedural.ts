/**
 * The procedural styles as studio subjects: builds the vehicle (model.ts) and turns its part tags into
 * roles (baker/subject.ts), own materials (own-materials.ts) and the shader patch of the wheel-arch cut and the
 * per-pixel paint/trim split, so that the baker (baker/bake-set.ts) treats it like any other subject.
 */
import * as THREE from 'three';
import { bakeSubject, DEFAULT_SUPERSAMPLE, type BakeOptions, type BakeResult } from '../../baker/bake-set.ts';
import { archPatch, ownMaterial, type Tag } from './own-materials.ts';
import { buildVehicle } from './model.ts';
import type { SetDef } from './styles.ts';
import type { Role, StudioSubject } from '../../baker/subject.ts';

export const TAG_ROLES: Record<Tag, Role> = {
  paint: 'paint',
  glass: 'glass',
  tyre: 'tyre',
  rim: 'rim',
  dish: 'rim',
  trim: 'trim',
  chrome: 'chrome',
  headlight: 'lamp',
  taillight: 'lamp',
  grille: 'trim',
  plate: 'plate',
  interior: 'interior',
  cabin: 'interior',
  liner: 'trim',
  none: 'hide',
};

export function proceduralSubject(def: SetDef): StudioSubject {
  const v = buildVehicle(def.params);
  const own = new Map<string, THREE.Material>();
  v.group.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh) return;
    const cut = mesh.userData.archCut === true;
    const clip = (mesh.userData.clip ?? null) as 'above' | 'below' | null;
    const back = mesh.userData.side === 'back';
    const patch = cut || clip ? archPatch(v.arch, clip) : undefined;
    const material = (tag: Tag) => {
      const key = `${tag}|${back}|${patch?.key ?? ''}`;
      let m = own.get(key);
      if (!m) {
        m = ownMaterial(tag);
        if (back) m.side = THREE.BackSide;
        patch?.apply(m);
        own.set(key, m);
      }
      return m;
    };
    if (Array.isArray(mesh.userData.tags)) {
      const tags = mesh.userData.tags as Tag[];
      mesh.userData.roles = tags.map((t) => TAG_ROLES[t]);
      mesh.material = tags.map(material);
    } else {
      const tag = mesh.userData.tag as Tag;
      mesh.userData.role = TAG_ROLES[tag];
      mesh.material = material(tag);
    }
    if (patch) mesh.userData.studioPatch = patch;
    // the insides of shells, the second (trim) copy of the lower body and the cabin add nothing to the
    // contact shadow
    if (back || clip === 'below' || mesh.userData.tag === 'cabin') mesh.userData.castsShadow = false;
  });
  const p = def.params;
  return {
    group: v.group,
    plates: { front: v.plates.front, rear: v.plates.rear },
    size: { length: p.length, width: p.width, height: p.height },
    source: { kind: 'procedural', note: `${p.style} style, renderer/bake/styles.ts (set ${def.id})` },
    fingerprint: JSON.stringify({ p, paint: def.basePaint }),
  };
}

/** A procedural set (styles.ts): `bakeSubject` of `proceduralSubject(def)` with the set's id and paint. */
export async function bakeSet(
  renderer: THREE.WebGLRenderer,
  def: SetDef,
  outDir: string,
  opts: Omit<BakeOptions, 'id' | 'supersample'> & { supersample?: number },
): Promise<BakeResult> {
  return bakeSubject(renderer, proceduralSubject(def), outDir, {
    ...opts,
    id: def.id,
    supersample: opts.supersample ?? DEFAULT_SUPERSAMPLE,
    neutralPaint: opts.neutralPaint ?? def.basePaint,
  });
}
