import { expect } from 'chai';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { CpuCompositor } from '../../renderer/backends/cpu/cpu-backend.ts';
import { rowBands } from '../../renderer/backends/cpu/bands.ts';
import { TEST_SET, compositeJob, expectKernelMatch, quietLogger, testAssets } from './helpers.ts';
import { compositeKernel } from '../support/reference-kernel.ts';
import { kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';

/** How the cpu backend shares a picture out: bands of rows, and inline when the render is alone. */
describe('cpu backend, bands and inline compositing', function () {
  this.timeout(60_000);

  it('splits rows into bands of equal height that cover the picture once, one row each at most', () => {
    for (const [height, count] of [[400, 1], [400, 2], [401, 3], [1350, 7]] as const) {
      const bands = rowBands(height, count);
      expect(bands.length).to.equal(count);
      expect(bands[0]![0]).to.equal(0);
      expect(bands.at(-1)![1]).to.equal(height);
      for (let b = 0; b < bands.length; b++) {
        const [y0, y1] = bands[b]!;
        expect(y1 - y0, 'equal heights').to.be.within(Math.floor(height / count), Math.ceil(height / count));
        if (b > 0) expect(y0, 'contiguous').to.equal(bands[b - 1]![1]);
      }
    }
    expect(rowBands(3, 5)).to.deep.equal([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
  });

  it('composites inline when the render is alone, in the workers otherwise, with the same bytes', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET);
    let alone = true;
    const pool = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels: 0, alone: () => alone });
    try {
      const job = await compositeJob(store, pool, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: 'AB 1234', transparent: false, width: 480 });
      const ref = new Uint8Array(job.layers.width * job.layers.height * 3);
      compositeKernel({ ...kernelInput(job, ref), runs: null, shadowedBase: null });
      for (const a of [true, false, true]) {
        alone = a;
        const before = pool.inlineComposites;
        const img = await pool.composite(job);
        expect(pool.inlineComposites - before, `alone ${a}`).to.equal(a ? 1 : 0);
        expectKernelMatch(img.data, ref, job.layers.paint, 3, `alone ${a}`);
        pool.release(img);
      }
      // a transparent picture computes every pixel: never inline above the small-picture bound
      alone = true;
      const t = await compositeJob(store, pool, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: null, transparent: true, width: 480 });
      expect(t.layers.coverage, 'the test set has a coverage plane').to.not.equal(null);
      const before = pool.inlineComposites;
      pool.release(await pool.composite(t));
      expect(pool.inlineComposites - before, 'transparent, alone').to.equal(0);
    } finally {
      await pool.close();
    }
  });
});
