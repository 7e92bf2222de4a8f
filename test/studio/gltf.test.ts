/**
 * The glTF baker end to end (`npm run bake -- gltf`, run in-process): small cars built in the test
 * (test/support/gltf-car.ts: a box body in a paint material, a glass cabin, four tyres, lamps, two
 * plates) baked at 320 x 180. Needs WebGL 2 (headless-gl); skipped without it unless CI=true or
 * REQUIRE_GL=1. Nothing is read from ../shared.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';
import { CAR, writeFixtureCar } from '../support/gltf-car.ts';
import { skipWithoutWebGl } from '../support/webgl.ts';

interface Grey { data: Uint8Array; width: number; height: number; channels: number }
async function readPng(file: string): Promise<Grey> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, channels: info.channels };
}
const at = (img: Grey, x: number, y: number, c = 0) => img.data[(Math.round(y) * img.width + Math.round(x)) * img.channels + c]!;

type Quad = [number, number][];
interface SetJson { views: Record<string, { plate_quad: Quad | null; calibration: { diffuse_gain: number; specular_floor: number } }> }

const W = 320;
const H = 180;
const VIEWS = ['front_left', 'side_right', 'rear'];

async function runCli(args: string[]): Promise<{ code: number; errors: string[] }> {
  const { runGltfCli } = await import('../../studio/bake/gltf/cli.ts');
  const errors: string[] = [];
  const orig = console.error;
  console.error = (...a: unknown[]) => errors.push(a.map(String).join(' '));
  try {
    return { code: await runGltfCli(args), errors };
  } finally {
    console.error = orig;
  }
}

describe('studio: glTF baker (npm run bake -- gltf)', function () {
  this.timeout(240_000);
  let tmp = '';
  let out = '';

  before(async function () {
    await skipWithoutWebGl(this);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gltf-bake-test-'));
    out = path.join(tmp, 'sets');
    await writeFixtureCar(path.join(tmp, 'plain.glb'));
    await writeFixtureCar(path.join(tmp, 'draco.glb'), { draco: true });
    await writeFixtureCar(path.join(tmp, 'zup-cm.glb'), { frame: 'z-up-cm' });
    for (const v of ['plain', 'draco', 'zup-cm']) {
      const r = await runCli([path.join(tmp, `${v}.glb`), '--out', out, '--id', `car-${v}`, '--width', String(W), '--views', VIEWS.join(','), '--quiet']);
      assert.equal(r.code, 0, `${v}: ${r.errors.join('\n')}`);
    }
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('writes format-2 sets that the renderer loads, and nothing else', async () => {
    assert.deepEqual(fs.readdirSync(out).sort(), ['car-draco', 'car-plain', 'car-zup-cm']);
    for (const id of ['car-plain', 'car-draco', 'car-zup-cm']) {
      const meta = await readSetMeta(path.join(out, id));
      assert.deepEqual(Object.keys(meta.views).sort(), [...VIEWS].sort());
      assert.ok(meta.views.front_left?.plateQuad, `${id}: front_left shows the front plate`);
      assert.ok(meta.views.rear?.plateQuad, `${id}: rear shows the rear plate`);
      assert.equal(meta.views.side_right?.plateQuad, null);
      const set = JSON.parse(fs.readFileSync(path.join(out, id, 'set.json'), 'utf8')) as { format: number; source: { kind: string } };
      assert.equal(set.format, 2);
      assert.equal(set.source.kind, 'gltf');
    }
  });

  it('paints the body and not the glass or the tyres (side view)', async () => {
    const dir = path.join(out, 'car-plain', 'side_right');
    const paint = await readPng(path.join(dir, 'paint.png'));
    const cov = await readPng(path.join(dir, 'coverage.png'));
    // the body's near side (z = 0.9) is a plane facing the camera: its x maps linearly to columns
    let L = W, R = -1, B = -1;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (at(paint, x, y) < 128) continue;
        L = Math.min(L, x); R = Math.max(R, x); B = Math.max(B, y);
      }
    }
    assert.ok(R > L, 'some paint');
    const s = (R + 1 - L) / (CAR.body.max[0] - CAR.body.min[0]); // px per metre
    const col = (x: number) => L + (x - CAR.body.min[0]) * s;
    const row = (y: number) => B + 1 - (y - CAR.body.min[1]) * s * Math.cos((4 * Math.PI) / 180);
    const r = CAR.wheelR * s;
    // tyres stand in front of the body: no paint inside them, and they are drawn
    for (const wx of [-CAR.wheelX, CAR.wheelX]) {
      const cx = col(wx), cy = row(CAR.wheelR);
      for (let a = 0; a < 12; a++) {
        for (const f of [0, 0.3, 0.6]) {
          const x = cx + f * r * Math.cos((a * Math.PI) / 6), y = cy + f * r * Math.sin((a * Math.PI) / 6);
          assert.equal(at(paint, x, y), 0, `paint on the tyre at ${x.toFixed(0)},${y.toFixed(0)}`);
          assert.equal(at(cov, x, y), 255, `tyre not drawn at ${x.toFixed(0)},${y.toFixed(0)}`);
        }
      }
    }
    // the glass cabin above the body, where only the backdrop lies behind it: drawn (partly
    // transparent), no paint (lower down, the body's top is seen through the glass and counts as paint)
    for (const gx of [-0.8, -0.1, 0.6]) {
      for (const gy of [1.17, 1.25, 1.33]) {
        const x = col(gx), y = row(gy);
        assert.equal(at(paint, x, y), 0, `paint on the glass at ${x.toFixed(0)},${y.toFixed(0)}`);
        assert.ok(at(cov, x, y) > 60, `glass not drawn at ${x.toFixed(0)},${y.toFixed(0)}`);
      }
    }
    // the body side between and beside the wheels: fully painted
    let n = 0, full = 0;
    for (let x = Math.ceil(col(-2.0)); x <= col(2.0); x++) {
      for (let y = Math.ceil(row(0.9)); y <= row(0.35); y++) {
        const inTyre = [-CAR.wheelX, CAR.wheelX].some((wx) => Math.hypot(x - col(wx), y - row(CAR.wheelR)) < r + 2);
        if (inTyre) continue;
        n++;
        if (at(paint, x, y) === 255) full++;
      }
    }
    assert.ok(n > 1000 && full / n > 0.98, `body painted: ${full}/${n}`);
  });

  it('puts the plate quad where the plate is drawn (within 2 px)', async () => {
    const set = JSON.parse(fs.readFileSync(path.join(out, 'car-plain', 'set.json'), 'utf8')) as SetJson;
    for (const view of ['front_left', 'rear']) {
      const q = set.views[view]!.plate_quad!;
      const base = await readPng(path.join(out, 'car-plain', view, 'base.png'));
      const xs = q.map((p) => p[0]), ys = q.map((p) => p[1]);
      const plate: [number, number][] = [];
      for (let y = Math.max(0, Math.floor(Math.min(...ys)) - 6); y <= Math.min(H - 1, Math.ceil(Math.max(...ys)) + 6); y++) {
        for (let x = Math.max(0, Math.floor(Math.min(...xs)) - 6); x <= Math.min(W - 1, Math.ceil(Math.max(...xs)) + 6); x++) {
          // the blank studio plate: linear 0.8 = sRGB 231 on all channels
          if ([0, 1, 2].every((c) => Math.abs(at(base, x, y, c) - 231) <= 1)) plate.push([x + 0.5, y + 0.5]);
        }
      }
      assert.ok(plate.length > 50, `${view}: plate drawn (${plate.length} px)`);
      // every plate pixel lies inside the quad grown by 2 px, and every corner has plate pixels within 2 px
      const grown = (x: number, y: number) => q.every((a, i) => {
        const b = q[(i + 1) % 4]!;
        const ex = b[0] - a[0], ey = b[1] - a[1];
        return (ex * (y - a[1]) - ey * (x - a[0])) / Math.hypot(ex, ey) >= -2;
      });
      for (const [x, y] of plate) assert.ok(grown(x, y), `${view}: plate pixel ${x},${y} outside the quad`);
      for (const [cx, cy] of q) {
        const d = Math.min(...plate.map(([x, y]) => Math.hypot(x - cx, y - cy)));
        assert.ok(d <= 2, `${view}: corner ${cx},${cy} is ${d.toFixed(2)} px from the drawn plate`);
      }
    }
  });

  it('leaves the quad out (null) where the plate is hidden', async () => {
    const model = path.join(tmp, 'covered.glb');
    await writeFixtureCar(model, { coverFrontPlate: true });
    const r = await runCli([model, '--out', path.join(tmp, 'covered'), '--width', String(W), '--views', 'front,rear', '--quiet']);
    assert.equal(r.code, 0, r.errors.join('\n'));
    const set = JSON.parse(fs.readFileSync(path.join(tmp, 'covered', 'covered', 'set.json'), 'utf8')) as SetJson;
    assert.equal(set.views.front!.plate_quad, null, 'the front plate is behind a panel');
    assert.ok(set.views.rear!.plate_quad, 'the rear plate is seen');
  });

  it('bakes the Draco and the Z-up centimetre variants like the plain one', async () => {
    const ref = JSON.parse(fs.readFileSync(path.join(out, 'car-plain', 'set.json'), 'utf8')) as SetJson;
    for (const id of ['car-draco', 'car-zup-cm']) {
      const set = JSON.parse(fs.readFileSync(path.join(out, id, 'set.json'), 'utf8')) as SetJson;
      for (const view of VIEWS) {
        const a = ref.views[view]!, b = set.views[view]!;
        if (a.plate_quad) a.plate_quad.forEach((p, i) => assert.ok(Math.hypot(p[0] - b.plate_quad![i]![0], p[1] - b.plate_quad![i]![1]) < 1, `${id} ${view} quad: ${JSON.stringify(a.plate_quad)} vs ${JSON.stringify(b.plate_quad)}`));
        assert.ok(Math.abs(a.calibration.diffuse_gain / b.calibration.diffuse_gain - 1) < 0.02, `${id} ${view} gain`);
        for (const layer of ['base', 'paint', 'coverage', 'diffuse', 'shadow']) {
          const f = path.join(view, `${layer}.png`);
          if (!fs.existsSync(path.join(out, 'car-plain', f))) continue;
          const p = await readPng(path.join(out, 'car-plain', f));
          const o = await readPng(path.join(out, id, f));
          // the frame may move by a fraction of a pixel (the baker frames on a sample of the vertices,
          // whose order Draco may change): a value matches when it lies within the range of the other
          // set's values within 1 px, give or take 24
          let sum = 0, big = 0;
          const ch = p.channels;
          for (let y = 0; y < p.height; y++) {
            for (let x = 0; x < p.width; x++) {
              for (let c = 0; c < ch; c++) {
                const i = (y * p.width + x) * ch + c;
                sum += Math.abs(p.data[i]! - o.data[i]!);
                let lo = 255, hi = 0;
                for (let dy = -1; dy <= 1; dy++) {
                  for (let dx = -1; dx <= 1; dx++) {
                    const yy = y + dy, xx = x + dx;
                    if (yy < 0 || xx < 0 || yy >= p.height || xx >= p.width) continue;
                    const v = p.data[(yy * p.width + xx) * ch + c]!;
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                  }
                }
                const v = o.data[i]!;
                if (v < lo - 24 || v > hi + 24) big++;
              }
            }
          }
          const mean = sum / p.data.length;
          assert.ok(mean < 1, `${id} ${f}: mean difference ${mean.toFixed(3)}`);
          assert.ok(big / p.data.length < 0.001, `${id} ${f}: ${big} values differ by more than 24`);
        }
      }
    }
  });

  it('fails with one line naming the problem and writes nothing for bad files', async () => {
    const bad = path.join(tmp, 'bad');
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, 'notes.glb'), 'not a model\n');
    fs.writeFileSync(path.join(bad, 'empty.gltf'), JSON.stringify({ asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }], nodes: [{ name: 'Empty' }] }));
    await writeFixtureCar(path.join(bad, 'grey.glb'), { noPaint: true });
    const badOut = path.join(tmp, 'bad-out');
    for (const [file, re] of [
      ['notes.glb', /^bake gltf: .*notes\.glb: not a glTF 2\.0 file/],
      ['empty.gltf', /^bake gltf: .*empty\.gltf: the file has no mesh/],
      ['grey.glb', /^bake gltf: .*grey\.glb: no paint found/],
    ] as const) {
      const r = await runCli([path.join(bad, file), '--out', badOut, '--width', String(W), '--views', 'front_left', '--quiet']);
      assert.notEqual(r.code, 0, file);
      assert.equal(r.errors.length, 1, `${file}: ${r.errors.join(' | ')}`);
      assert.match(r.errors[0]!, re);
      assert.ok(!r.errors[0]!.includes('\n'));
      assert.ok(!fs.existsSync(badOut) || fs.readdirSync(badOut).length === 0, `${file}: something was written`);
    }
  });
});
