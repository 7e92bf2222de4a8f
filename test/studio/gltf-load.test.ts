/**
 * The glTF baker's input side, without GL: loading (GLB, .gltf with external files, Draco, meshopt,
 * mesh quantization, PNG/JPEG/WebP textures, KHR_texture_transform, clear coat, transmission), roles
 * from names and the role map, orientation and unit detection, plate faces, and the clear failures.
 * Every model is built here (test/support/gltf-car.ts); nothing is read from ../shared.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as THREE from 'three';
import { GltfInputError, loadGltf } from '../../baker/gltf/load.ts';
import { classify, readRoleMap, roleFromName } from '../../baker/gltf/roles.ts';
import { gltfSubject } from '../../baker/gltf/subject.ts';
import { CAR, writeFixtureCar } from '../support/gltf-car.ts';

function meshesByNode(scene: THREE.Object3D): Map<string, THREE.Mesh> {
  const out = new Map<string, THREE.Mesh>();
  scene.traverse((o) => {
    if ((o as THREE.Mesh).isMesh) out.set(o.name, o as THREE.Mesh);
  });
  return out;
}

function worldBox(mesh: THREE.Mesh): THREE.Box3 {
  return new THREE.Box3().setFromObject(mesh, true);
}

function near(a: number, b: number, tol: number, what: string): void {
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b} (±${tol})`);
}

describe('studio: glTF input (loading, roles, normalisation)', function () {
  this.timeout(60_000);
  let tmp = '';
  const f = (name: string) => path.join(tmp, name);

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gltf-load-'));
    await writeFixtureCar(f('plain.glb'));
    await writeFixtureCar(f('textured.glb'), { textures: true });
    await writeFixtureCar(f('external.gltf'), { textures: true });
    await writeFixtureCar(f('draco.glb'), { draco: true });
    await writeFixtureCar(f('meshopt.glb'), { meshopt: true });
    await writeFixtureCar(f('quantized.glb'), { quantize: true });
    await writeFixtureCar(f('zup-cm.glb'), { frame: 'z-up-cm' });
    await writeFixtureCar(f('zup-cm-draco.glb'), { frame: 'z-up-cm', draco: true });
    await writeFixtureCar(f('nopaint.glb'), { noPaint: true });
  });
  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('loads GLB, .gltf with external buffer and images, Draco, meshopt and quantized meshes to the same geometry', async () => {
    const ref = meshesByNode((await loadGltf(f('plain.glb'))).scene);
    assert.ok(fs.existsSync(f('external.bin')), 'the .gltf fixture has an external buffer');
    assert.ok(fs.readdirSync(tmp).some((n) => /\.(png|jpg|jpeg|webp)$/.test(n)), 'the .gltf fixture has external images');
    for (const name of ['external.gltf', 'draco.glb', 'meshopt.glb', 'quantized.glb']) {
      const got = meshesByNode((await loadGltf(f(name))).scene);
      for (const [node, mesh] of ref) {
        const other = got.get(node);
        assert.ok(other, `${name}: node ${node} missing`);
        const a = worldBox(mesh), b = worldBox(other);
        for (const k of ['min', 'max'] as const) {
          for (const c of ['x', 'y', 'z'] as const) near(b[k][c], a[k][c], 0.005, `${name} ${node} ${k}.${c}`);
        }
      }
    }
  });

  it('decodes PNG, JPEG and WebP textures without a DOM, with KHR_texture_transform, clear coat and transmission', async () => {
    for (const name of ['textured.glb', 'external.gltf']) {
      const loaded = await loadGltf(f(name));
      assert.deepEqual(loaded.warnings, [], name);
      const m = meshesByNode(loaded.scene);
      const grille = m.get('Grille')!.material as THREE.MeshStandardMaterial;
      const img = grille.map!.image as { width: number; height: number; data: Uint8Array };
      assert.equal(img.width, 8);
      assert.equal(img.height, 4);
      // left half red, right half blue, first row first (glTF's UV origin is the image's top left)
      assert.deepEqual(Array.from(img.data.subarray(0, 4)), [255, 0, 0, 255]);
      assert.deepEqual(Array.from(img.data.subarray(7 * 4, 7 * 4 + 4)), [0, 0, 255, 255]);
      assert.equal(grille.map!.colorSpace, THREE.SRGBColorSpace);
      near(grille.map!.offset.x, 0.25, 1e-6, 'texture transform offset');
      near(grille.map!.repeat.x, 0.5, 1e-6, 'texture transform scale');
      const badge = m.get('Badge')!.material as THREE.MeshStandardMaterial;
      const webp = badge.map!.image as { width: number; data: Uint8Array };
      assert.equal(webp.width, 8);
      assert.deepEqual(Array.from(webp.data.subarray(0, 4)), [255, 0, 0, 255]);
      const chrome = m.get('Side_Trim')!.material as THREE.MeshPhysicalMaterial;
      assert.equal(chrome.clearcoat, 1);
      const jpeg = chrome.map!.image as { width: number; data: Uint8Array };
      assert.equal(jpeg.width, 8);
      assert.ok(jpeg.data[0]! > 200 && jpeg.data[2]! < 60, 'JPEG decoded (red on the left)');
      const lens = m.get('Headlight_L')!.material as THREE.MeshPhysicalMaterial;
      near(lens.transmission, 0.8, 1e-6, 'transmission');
    }
  });

  it('expands EXT_mesh_gpu_instancing into one mesh per instance', async () => {
    const { Document, NodeIO } = await import('@gltf-transform/core');
    const { ALL_EXTENSIONS } = await import('@gltf-transform/extensions');
    const { instance } = await import('@gltf-transform/functions');
    const doc = new Document();
    const buf = doc.createBuffer();
    const prim = doc.createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setBuffer(buf).setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])))
      .setMaterial(doc.createMaterial('Tyre'));
    const mesh = doc.createMesh('tyre').addPrimitive(prim);
    const scene = doc.createScene();
    for (const x of [-1, 0, 2]) scene.addChild(doc.createNode(`t${x}`).setMesh(mesh).setTranslation([x, 0, 0]));
    await doc.transform(instance({ min: 2 }));
    assert.ok(doc.getRoot().listExtensionsUsed().some((e) => e.extensionName === 'EXT_mesh_gpu_instancing'));
    await fs.promises.writeFile(f('instanced.glb'), await new NodeIO().registerExtensions(ALL_EXTENSIONS).writeBinary(doc));
    const xs: number[] = [];
    (await loadGltf(f('instanced.glb'))).scene.traverse((o) => {
      if ((o as THREE.Mesh).isMesh) {
        assert.ok(!(o as THREE.InstancedMesh).isInstancedMesh);
        xs.push(+worldBox(o as THREE.Mesh).min.x.toFixed(3));
      }
    });
    assert.deepEqual(xs.sort((a, b) => a - b), [-1, 0, 2]);
  });

  it('classifies parts from material and node names', () => {
    const cases: Array<[string, string[], string]> = [
      ['Paint_Red', ['Door_FL'], 'paint'],
      ['CarPaint_Metallic', [], 'paint'],
      ['Lack_Blau', [], 'paint'],
      ['Mat.012', ['Body'], 'paint'],
      ['Glass', ['Window_F'], 'glass'],
      ['Windshield', [], 'glass'],
      ['Glass', ['Light_Low_Beam_Lens_FL'], 'lamp'],
      ['Plastic_Red', ['Light_Brake_Lens_BL'], 'lamp'],
      ['Rubber_Black', ['Tire_FL'], 'tyre'],
      ['Chrome', ['Rim_FL'], 'rim'],
      ['Tyre', [], 'tyre'],
      ['Chrome', ['Side_Mirror_Mount_L'], 'chrome'],
      ['License_Plate', ['License_Plate_F'], 'plate'],
      ['mat1', ['number_plate_rear'], 'plate'],
      ['Tissue_Sand', ['FrontSeat_Backrest_R'], 'interior'],
      ['Wood_Dark', ['Steering_Wheel_Rim'], 'interior'],
      ['logo', ['boot.007_0'], 'hide'],
      ['Badge_Chrome', [], 'hide'],
      ['full_black', ['window_rear.001_0'], 'glass'], // by name; the subject demotes opaque "glass" nodes
      ['Material.001', ['Cylinder.000_3'], 'other'],
    ];
    for (const [mat, nodes, role] of cases) assert.equal(classify(mat, nodes).role, role, `${mat} / ${nodes.join(',')}`);
    assert.equal(roleFromName('Body_Chrome'), 'chrome');
    assert.equal(roleFromName('Headlight_Glass'), 'lamp');
  });

  it('stands a Y-up metre car and a Z-up centimetre car (nose -X) the same way in the studio frame', async () => {
    const plain = await gltfSubject(f('plain.glb'));
    assert.match(plain.report.join('\n'), /up \+Y/);
    assert.match(plain.report.join('\n'), /forward \+X/);
    for (const name of ['zup-cm.glb', 'zup-cm-draco.glb', 'draco.glb']) {
      const s = await gltfSubject(f(name));
      if (name.startsWith('zup')) {
        assert.deepEqual(s.source.orientation, { up: '+Z', forward: '-X', scale: 0.01 }, name);
      }
      near(s.size.length, plain.size.length, 0.003, `${name} length`);
      near(s.size.width, plain.size.width, 0.003, `${name} width`);
      near(s.size.height, plain.size.height, 0.003, `${name} height`);
      for (const side of ['front', 'rear'] as const) {
        const a = plain.plates[side]!, b = s.plates[side]!;
        for (let i = 0; i < 4; i++) assert.ok(a[i]!.distanceTo(b[i]!) < 0.003, `${name} ${side} plate corner ${i}`);
      }
    }
    // wheels on the floor, centred, nose +X: the tyres' lowest point is y = 0 and the front plate is at +X
    const box = new THREE.Box3().setFromObject(plain.group, true);
    near(box.min.y, 0, 1e-4, 'floor');
    near((box.min.x + box.max.x) / 2, 0, 1e-4, 'centre x');
    near((box.min.z + box.max.z) / 2, 0, 1e-4, 'centre z');
    near(plain.size.length, 4.212, 0.002, 'length');
    near(plain.size.height, CAR.glass.max[1], 1e-4, 'height');
  });

  it('finds the plates: corners TL, TR, BR, BL seen from outside, on the outer face', async () => {
    const s = await gltfSubject(f('plain.glb'));
    const fr = s.plates.front!.map((v) => v.toArray().map((x) => +x.toFixed(4)));
    // seen from the front the viewer's left is the car's right (+Z)
    assert.deepEqual(fr, [[2.104, 0.56, 0.26], [2.104, 0.56, -0.26], [2.104, 0.45, -0.26], [2.104, 0.45, 0.26]]);
    const rr = s.plates.rear!.map((v) => v.toArray().map((x) => +x.toFixed(4)));
    assert.deepEqual(rr, [[-2.104, 0.56, -0.26], [-2.104, 0.56, 0.26], [-2.104, 0.45, 0.26], [-2.104, 0.45, -0.26]]);
    assert.ok(s.plateFaces.front!.normal.x > 0.99 && s.plateFaces.rear!.normal.x < -0.99);
  });

  it('hides badges and ground planes, and applies the role map (patterns, axes, scale, plates)', async () => {
    const s = await gltfSubject(f('textured.glb'));
    assert.equal(s.parts.find((p) => p.node === 'Badge')?.role, 'hide');
    let names: string[] = [];
    s.group.traverse((o) => names.push(o.name));
    assert.ok(!names.includes('Badge'), 'hidden parts leave the scene');
    const mapFile = f('map.json');
    fs.writeFileSync(mapFile, JSON.stringify({
      roles: { 'Grille_*': 'paint', 'node:Side_Trim': 'hide', 'material:Tyre_Rubber': 'tyre' },
      up: '+Z', forward: '-X', scale: 0.01,
      plates: { front: { center: [2.11, 0.4, 0], size: [0.52, 0.11] }, rear: null },
    }));
    const map = await readRoleMap(mapFile);
    const z = await gltfSubject(f('zup-cm.glb'), map);
    assert.match(z.report.join('\n'), /up \+Z \(map\)/);
    assert.match(z.report.join('\n'), /scale 0\.01 m\/unit \(map\)/);
    assert.equal(z.plates.rear, null);
    const fp = z.plates.front!.map((v) => v.toArray().map((x) => +x.toFixed(3)));
    assert.deepEqual(fp, [[2.11, 0.455, 0.26], [2.11, 0.455, -0.26], [2.11, 0.345, -0.26], [2.11, 0.345, 0.26]]);
    const t = await gltfSubject(f('textured.glb'), map);
    assert.equal(t.parts.find((p) => p.node === 'Grille')?.role, 'paint');
    names = [];
    t.group.traverse((o) => names.push(o.name));
    assert.ok(!names.includes('Side_Trim'));
    fs.writeFileSync(mapFile, JSON.stringify({ roles: { x: 'paintt' } }));
    await assert.rejects(readRoleMap(mapFile), /role map .*roles\.x/);
  });

  it('fails with one clear line for a file that is not glTF 2.0, has no mesh, or has no paint', async () => {
    fs.writeFileSync(f('text.glb'), 'hello, not a model\n');
    fs.writeFileSync(f('v1.gltf'), JSON.stringify({ asset: { version: '1.0' }, scenes: {} }));
    fs.writeFileSync(f('empty.gltf'), JSON.stringify({ asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }], nodes: [{ name: 'Empty' }] }));
    const expect = async (file: string, re: RegExp) => {
      const err = await gltfSubject(f(file)).then(() => null, (e: unknown) => e as Error);
      assert.ok(err instanceof GltfInputError, `${file}: ${String(err)}`);
      assert.match(err.message, re);
      assert.ok(!err.message.includes('\n'), 'one line');
    };
    await expect('text.glb', /^not a glTF 2\.0 file/);
    await expect('v1.gltf', /^not a glTF 2\.0 file \(asset\.version is "1\.0"\)/);
    await expect('empty.gltf', /^the file has no mesh/);
    await expect('nopaint.glb', /^no paint found/);
    await expect('missing.glb', /^cannot open the file/);
  });
});
