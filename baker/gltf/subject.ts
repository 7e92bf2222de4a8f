/**
 * A glTF 2.0 file → a StudioSubject: load (load.ts), give every part a role (roles.ts, the role map),
 * hide what must not be drawn, normalise into the studio frame (normalise.ts), find the plates
 * (plates.ts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as THREE from 'three';
import type { StudioSubject } from '../subject.ts';
import { GltfInputError, loadGltf } from './load.ts';
import { axisLabel, detectOrientation, normaliseScene, parseAxis, type Orientation, type Part } from './normalise.ts';
import { plateFaceFromMap, plateFaceFromMeshes, type PlateFace } from './plates.ts';
import { classify, mapRules, roleFromMap, type RoleMap } from './roles.ts';

export interface GltfSubject extends StudioSubject {
  /** The plate faces with their outward normals (subject.plates holds their corners). */
  plateFaces: { front: PlateFace | null; rear: PlateFace | null };
  /** What was decided and why, for the operator (one line each). */
  report: string[];
  warnings: string[];
  orientation: Orientation;
  /** The translation normalisation applied after the orientation and scale (metres). */
  offset: THREE.Vector3;
  parts: Array<{ role: string; why: string; material: string; node: string }>;
}

/** Names of a mesh's nodes, nearest first, as written in the file. */
function nodeNamesOf(mesh: THREE.Object3D, names: Map<THREE.Object3D, string>, stop: THREE.Object3D): string[] {
  const out: string[] = [];
  for (let o: THREE.Object3D | null = mesh; o && o !== stop; o = o.parent) {
    const n = names.get(o) ?? (o === mesh ? '' : o.name);
    if (n && !out.includes(n)) out.push(n);
  }
  return out;
}

/**
 * A large flat part with few vertices (a ground plane, a shadow catcher, a backdrop) is not the car:
 * both of its sides are at least 35 % of the whole scene's largest side and it is flat.
 */
function isGroundPlane(mesh: THREE.Mesh, sceneExtent: number): boolean {
  const pos = mesh.geometry.attributes.position as THREE.BufferAttribute | undefined;
  if (!pos || pos.count > 64) return false;
  const box = new THREE.Box3().setFromObject(mesh);
  const s = box.getSize(new THREE.Vector3());
  const dims = [s.x, s.y, s.z].sort((a, b) => a - b);
  return dims[0]! < 0.01 * dims[2]! && dims[1]! > 0.35 * sceneExtent && dims[2]! > 0.35 * sceneExtent;
}

function seeThrough(m: THREE.Material): boolean {
  const p = m as THREE.MeshPhysicalMaterial;
  return m.transparent || m.opacity < 1 || (p.transmission ?? 0) > 0;
}

export async function gltfSubject(file: string, map?: RoleMap, opts: { mapFile?: string } = {}): Promise<GltfSubject> {
  const loaded = await loadGltf(file);
  const scene = loaded.scene;
  scene.updateMatrixWorld(true);
  const meshes: THREE.Mesh[] = [];
  scene.traverse((o) => {
    if ((o as THREE.Mesh).isMesh) meshes.push(o as THREE.Mesh);
  });
  const hasGeometry = (m: THREE.Mesh) => (m.geometry.attributes.position?.count ?? 0) >= 3 && (m.geometry.index ? m.geometry.index.count : m.geometry.attributes.position!.count) >= 3;
  const real = meshes.filter(hasGeometry);
  if (real.length === 0) throw new GltfInputError('the file has no mesh (no triangles to draw)');
  if (real.every((m) => (m as unknown as THREE.Points).isPoints || (m as unknown as THREE.Line).isLine)) throw new GltfInputError('the file has no mesh (only points or lines)');

  const rules = mapRules(map);
  const sceneBox = new THREE.Box3().setFromObject(scene);
  const sceneSize = sceneBox.getSize(new THREE.Vector3());
  const sceneExtent = Math.max(sceneSize.x, sceneSize.y, sceneSize.z);
  const parts: Part[] = [];
  for (const mesh of real) {
    if (Array.isArray(mesh.material)) mesh.material = mesh.material[0]!;
    const materialName = loaded.materialName.get(mesh.material as THREE.Material) ?? (mesh.material as THREE.Material).name ?? '';
    const nodeNames = nodeNamesOf(mesh, loaded.nodeName, scene);
    let r = roleFromMap(rules, materialName, nodeNames) ?? classify(materialName, nodeNames);
    if (!r.why.startsWith('map') && r.role !== 'hide' && isGroundPlane(mesh, sceneExtent)) r = { role: 'hide', why: 'a large flat plane (ground or backdrop)' };
    // a window's frame or seal under a window-named node is not glass: glass by node name must see through
    if (r.role === 'glass' && r.why.startsWith('node') && !seeThrough(mesh.material as THREE.Material)) r = { role: 'trim', why: `${r.why}, but opaque` };
    mesh.userData.role = r.role;
    parts.push({ mesh, role: r.role, why: r.why, materialName, nodeNames });
  }
  const visible = parts.filter((p) => p.role !== 'hide');
  if (visible.length === 0) throw new GltfInputError('no mesh is left to draw (every part is hidden)');
  if (!visible.some((p) => p.role === 'paint')) {
    throw new GltfInputError(
      'no paint found: no material or node is named like body paint (paint, body, carpaint, lack, ...) and the role map names none; pass --map with e.g. {"roles": {"<material>": "paint"}}',
    );
  }

  let fixedUp, fixedFwd;
  try {
    fixedUp = map?.up ? parseAxis(map.up) : undefined;
    fixedFwd = map?.forward ? parseAxis(map.forward) : undefined;
  } catch (e) {
    throw new GltfInputError(`role map: ${(e as Error).message}`);
  }
  if (fixedUp && fixedFwd && fixedUp.axis === fixedFwd.axis) throw new GltfInputError('role map: up and forward are the same axis');
  const orientation = detectOrientation(visible, { up: fixedUp, forward: fixedFwd, scale: map?.scale });

  // hidden parts leave the scene: nothing of them is drawn, shadowed or framed
  for (const p of parts) if (p.role === 'hide') p.mesh.parent?.remove(p.mesh);
  const { group, offset } = normaliseScene(scene, visible, orientation);

  // size of what is drawn
  const box = new THREE.Box3();
  for (const p of visible) box.expandByObject(p.mesh, true);
  const size = box.getSize(new THREE.Vector3());

  // plates: the plate meshes in front of or behind the middle, or the map's rectangles
  const plateMeshes = { front: [] as THREE.Mesh[], rear: [] as THREE.Mesh[] };
  for (const p of visible) {
    if (p.role !== 'plate') continue;
    const c = new THREE.Box3().setFromObject(p.mesh).getCenter(new THREE.Vector3());
    plateMeshes[c.x >= 0 ? 'front' : 'rear'].push(p.mesh);
  }
  const faces = { front: null as PlateFace | null, rear: null as PlateFace | null };
  const report: string[] = [];
  for (const side of ['front', 'rear'] as const) {
    const fromMap = plateFaceFromMap(map, side);
    if (fromMap !== undefined) {
      faces[side] = fromMap;
      report.push(`${side} plate: ${fromMap ? 'from the role map' : 'none (role map)'}`);
    } else if (plateMeshes[side].length) {
      faces[side] = plateFaceFromMeshes(plateMeshes[side], side);
      report.push(`${side} plate: ${faces[side] ? 'plate mesh' : 'plate mesh, but not facing ' + side} (${plateMeshes[side].length} part${plateMeshes[side].length > 1 ? 's' : ''})`);
    } else report.push(`${side} plate: none found (no plate-named part; the map can give one)`);
  }

  const roleCount = new Map<string, number>();
  for (const p of parts) roleCount.set(p.role, (roleCount.get(p.role) ?? 0) + 1);
  report.unshift(
    `${loaded.triangles.toLocaleString('en')} triangles, ${parts.length} parts: ${[...roleCount].map(([r, n]) => `${r} ${n}`).join(', ')}`,
    `orientation: ${orientation.notes.join('; ')}`,
    `size ${size.x.toFixed(2)} x ${size.z.toFixed(2)} x ${size.y.toFixed(2)} m (length x width x height)`,
  );

  const bytes = await fs.readFile(file);
  const fingerprint = createHash('sha256')
    .update(bytes)
    .update(JSON.stringify(map ?? null))
    .digest('hex')
    .slice(0, 16);
  const credit = loaded.asset.extras ?? {};
  const note = [
    `glTF ${path.basename(file)}`,
    typeof credit.title === 'string' ? `"${credit.title}"` : null,
    typeof credit.author === 'string' ? `by ${credit.author}` : null,
    typeof credit.license === 'string' ? `licence ${credit.license}` : null,
    loaded.asset.copyright ? `© ${loaded.asset.copyright}` : null,
  ].filter(Boolean).join(', ');
  return {
    group,
    plates: { front: faces.front?.corners ?? null, rear: faces.rear?.corners ?? null },
    plateFaces: faces,
    size: { length: size.x, width: size.z, height: size.y },
    source: {
      kind: 'gltf',
      note,
      file: path.basename(file),
      ...(opts.mapFile ? { role_map: path.basename(opts.mapFile) } : {}),
      orientation: { up: axisLabel(orientation.up), forward: axisLabel(orientation.forward), scale: orientation.scale },
    },
    fingerprint,
    report,
    warnings: loaded.warnings,
    orientation,
    offset,
    parts: parts.map((p) => ({ role: p.role, why: p.why, material: p.materialName, node: p.nodeNames[0] ?? '' })),
  };
}
