import { expect } from 'chai';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { CpuCompositor, kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { overlayRow, plateTexel, samplePlate } from '../../renderer/backends/cpu/kernel.ts';
import { compositeKernel } from '../support/reference-kernel.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { TEST_SET, compositeJob, quietLogger, testAssets } from './helpers.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';

/** plate-overlay.ts: the plate over a level, made once per plate raster and level, and what generalRow does with it. */
describe('cpu kernel, plate overlay', function () {
  this.timeout(60_000);
  let store: AssetStore;
  let pool: CpuCompositor;
  before(async () => {
    store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    pool = await CpuCompositor.create({ workers: 0, logger: quietLogger });
  });
  after(() => pool.close());

  it('lists every pixel the plate touches once, solid (alpha 1, bytes known) or edge, and writes the bytes generalRow writes', async () => {
    const set = await store.getSet(TEST_SET);
    let views = 0;
    for (const view of VIEW_IDS.filter((v) => set.views[v]!.plateQuad)) {
      for (const [color, shadow] of [
        ['#C41E3A', true],
        ['#F5F5F5', false],
      ] as const) {
        const job = await compositeJob(store, pool, set, { view, color, shadow, plate: 'XY-98 ÄÖ', transparent: false, width: 480 });
        const { width, height } = job.layers;
        const input = kernelInput(job, new Uint8Array(width * height * 3));
        const ov = input.plate!.overlay!;
        const [x0, y0, x1, y1] = input.plate!.bbox;
        expect(ov.y0).to.equal(y0);
        expect(ov.rows).to.equal(y1 - y0);
        // the same pixels as sampling the plate per pixel, each in one list, solid ones at alpha exactly 1
        const listed = new Map<number, 'solid' | 'edge'>();
        for (let j = 0; j < ov.solidStart[ov.rows]!; j++) listed.set(ov.solidIdx[j]!, 'solid');
        for (let j = 0; j < ov.edgeStart[ov.rows]!; j++) {
          expect(listed.has(ov.edgeIdx[j]!), 'listed once').to.equal(false);
          listed.set(ov.edgeIdx[j]!, 'edge');
        }
        let touched = 0;
        for (let y = y0; y < y1; y++) {
          for (let x = x0; x < x1; x++) {
            const i = y * width + x;
            if (!samplePlate(input.plate!, x, y)) {
              expect(listed.has(i), `pixel ${x},${y} untouched`).to.equal(false);
              continue;
            }
            touched++;
            expect(listed.get(i), `pixel ${x},${y}`).to.equal(plateTexel[3] === 1 ? 'solid' : 'edge');
          }
        }
        expect(touched, `${view}: the plate covers pixels`).to.be.above(50);
        expect(ov.solidStart[ov.rows]!, `${view}: most of the plate is solid`).to.be.above(ov.edgeStart[ov.rows]!);
        // on top of the reference picture, the overlay's rows change nothing that generalRow wrote
        const ref = new Uint8Array(width * height * 3);
        compositeKernel({ ...input, out: ref, runs: null, shadowedBase: null });
        const viaOverlay = Uint8Array.from(ref);
        const k = { ...input, out: viaOverlay };
        // scribble over the plate's pixels first, so the overlay has to write every one of them
        for (const i of listed.keys()) viaOverlay.fill(7, i * 3, i * 3 + 3);
        for (let y = y0; y < y1; y++) overlayRow(k, ov, y);
        expect(Buffer.compare(Buffer.from(viaOverlay), Buffer.from(ref)), `${view} ${color}`).to.equal(0);
      }
      views++;
    }
    expect(views, 'the test set has views with a plate quad').to.be.above(0);
  });

  it('is made once per plate raster, level and placement, and not for a transparent background', async () => {
    const set = await store.getSet(TEST_SET);
    const view = VIEW_IDS.find((v) => set.views[v]!.plateQuad)!;
    const job = (color: string, plate: string, width: number, transparent = false) => compositeJob(store, pool, set, { view, color, shadow: true, plate, transparent, width });
    const a = await job('#C41E3A', 'AB 1234', 480);
    const b = await job('#1E4B8C', 'AB 1234', 480);
    const ovA = kernelInput(a, new Uint8Array(0)).plate!.overlay;
    expect(ovA).to.be.an('object');
    // another colour, the same plate over the same level: the same overlay
    expect(kernelInput(b, new Uint8Array(0)).plate!.overlay).to.equal(ovA);
    // another plate text, or another level: another overlay
    expect(kernelInput(await job('#1E4B8C', 'ZZ 9', 480), new Uint8Array(0)).plate!.overlay).to.not.equal(ovA);
    const small = await job('#1E4B8C', 'AB 1234', 240);
    expect(small.layers).to.not.equal(a.layers);
    expect(kernelInput(small, new Uint8Array(0)).plate!.overlay).to.not.equal(ovA);
    // the transparent rows sample the plate per pixel
    const t = await job('#1E4B8C', 'AB 1234', 480, true);
    expect(t.layers.coverage, 'the test set has a coverage plane').to.not.equal(null);
    expect(kernelInput(t, new Uint8Array(0)).plate!.overlay ?? null).to.equal(null);
  });
});
