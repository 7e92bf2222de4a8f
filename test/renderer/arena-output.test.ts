import { expect } from 'chai';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { CpuCompositor, kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { compositeKernel } from '../../renderer/backends/cpu/kernel.ts';
import { runPipeline, STEPS } from '../../renderer/pipeline/pipeline.ts';
import type { RenderContext, Step } from '../../renderer/pipeline/context.ts';
import { TEST_SET, compositeJob, expectKernelMatch, quietLogger, testAssets } from './helpers.ts';

/**
 * The layers' own output picture (LayerArena.output): an opaque render composites into it in place
 * when no other render holds it, and it comes back when the render is done with it, encoded or failed.
 */
describe('cpu backend, the layers\' own output picture', function () {
  this.timeout(60_000);

  it('lends it to one opaque render at a time, with the same bytes as a pooled buffer, inline and in the workers', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger });
    const set = await store.getSet(TEST_SET);
    for (const inlineMaxPixels of [0, 1 << 30]) {
      const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels });
      try {
        const job = await compositeJob(store, cpu, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: 'AB 1234', transparent: false, width: 480 });
        const own = job.layers.arena?.output ?? null;
        expect(own, 'the cpu store gives each level an output picture').to.not.equal(null);
        expect(own!.length).to.equal(job.layers.width * job.layers.height * 3);
        const ref = new Uint8Array(own!.length);
        compositeKernel({ ...kernelInput(job, ref), runs: null, shadowedBase: null });
        // two at once: the first holds the layers' picture, the second gets a pooled one
        const [a, b] = await Promise.all([cpu.composite(job), cpu.composite(job)]);
        expect(a.data, 'the first').to.equal(own);
        expect(b.data, 'the second, while the first holds it').to.not.equal(own);
        expectKernelMatch(a.data, ref, job.layers.paint, 3, `in place, inline ${inlineMaxPixels > 0}`);
        expectKernelMatch(b.data, ref, job.layers.paint, 3, `pooled, inline ${inlineMaxPixels > 0}`);
        cpu.release(a);
        cpu.release(b);
        // given back: the next render has it again, primed (only the plate's box put back), another colour
        const blue = { ...job, color: [0.01, 0.07, 0.26] as [number, number, number] };
        const blueRef = new Uint8Array(own!.length);
        compositeKernel({ ...kernelInput(blue, blueRef), runs: null, shadowedBase: null });
        const primedBefore = cpu.primedComposites;
        const c = await cpu.composite(blue);
        expect(c.data).to.equal(own);
        expect(cpu.primedComposites - primedBefore).to.equal(1);
        expectKernelMatch(c.data, blueRef, job.layers.paint, 3, `primed in place, inline ${inlineMaxPixels > 0}`);
        cpu.release(c);
        // a transparent picture (RGBA) never goes there
        const t = await compositeJob(store, cpu, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: null, transparent: true, width: 480 });
        const ti = await cpu.composite(t);
        expect(ti.channels).to.equal(4);
        expect(ti.data).to.not.equal(t.layers.arena?.output);
        cpu.release(ti);
      } finally {
        await cpu.close();
      }
    }
  });

  it('comes back when a render fails after its composite, so the next render has it', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger });
    const set = await store.getSet(TEST_SET);
    const cpu = await CpuCompositor.create({ workers: 0, logger: quietLogger });
    try {
      const ctxOf = (): RenderContext => ({
        req: { assetSet: TEST_SET, view: 'front_left', color: '#2E7D32', shadow: true, plate: 'K 1', format: 'png', width: 480 },
        set,
        view: set.views.front_left!,
        deadline: { at: Infinity },
        timings: {},
      });
      const failing: Step = {
        name: 'encode',
        run() {
          throw new Error('encoder failed');
        },
      };
      const ctx = ctxOf();
      let failed: unknown = null;
      await runPipeline(ctx, { store, backend: cpu }, [...STEPS.slice(0, 3), failing]).catch((e: unknown) => (failed = e));
      expect((failed as Error | null)?.message).to.equal('encoder failed');
      expect(ctx.image, 'the pipeline gave the picture back').to.equal(undefined);
      const next = ctxOf();
      await runPipeline(next, { store, backend: cpu }, STEPS.slice(0, 3));
      expect(next.image!.data).to.equal(next.layers!.arena!.output);
      cpu.release(next.image!);
    } finally {
      await cpu.close();
    }
  });
});
