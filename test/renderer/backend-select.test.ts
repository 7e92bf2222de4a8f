import { expect } from 'chai';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import type { CompositeJob, Compositor, RgbImage } from '../../renderer/backends/backend.ts';
import { CpuCompositor } from '../../renderer/backends/cpu/cpu-backend.ts';
import { measureCompositors } from '../../renderer/backends/measure.ts';
import { PARITY_MAX_CODE_DIFF, PARITY_MIN_PSNR_DB } from '../../renderer/backends/parity.ts';
import { createCompositor, isSoftwareRasterizer } from '../../renderer/backends/select.ts';
import { probePictures } from '../../renderer/backend-probe.ts';
import { captureLog } from '../support/log-capture.ts';
import { GL_REQUIRED, TEST_SET, quietLogger, renderBytes, req, startTestServer, testAssets } from './helpers.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';

/** A real compositor whose pictures are one code off in the red of every pixel: a driver that rounds wrong. */
class OffByThree implements Compositor {
  readonly name = 'gl' as const;
  readonly description = 'cpu kernel, 3 codes off';
  readonly levelExtras = CPU_LEVEL_EXTRAS;
  constructor(private readonly inner: Compositor) {}
  async composite(job: CompositeJob): Promise<RgbImage> {
    const img = await this.inner.composite(job);
    const data = img.data.slice();
    for (let i = 0; i < data.length; i += img.channels) data[i] = Math.min(255, data[i]! + 3);
    this.inner.release?.(img);
    return { ...img, data };
  }
  async close(): Promise<void> {}
}

async function glOrNull(): Promise<Compositor | null> {
  try {
    const { GlCompositor } = await import('../../renderer/backends/gl/gl-backend.ts');
    return await GlCompositor.create({ logger: quietLogger });
  } catch (e) {
    if (GL_REQUIRED) throw e;
    return null;
  }
}

describe('choosing the render backend (RENDER_BACKEND=auto)', function () {
  this.timeout(60_000);

  describe('happy', () => {
    it('knows the software rasterizers by their GL renderer strings', () => {
      expect(isSoftwareRasterizer('ANGLE (Mesa, Vulkan 1.3.230 (llvmpipe (LLVM 15.0.6 256 bits) (0x00000000)), llvmpipe) | OpenGL ES 3.0.0')).to.equal(true);
      expect(isSoftwareRasterizer('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)')).to.equal(true);
      expect(isSoftwareRasterizer('ANGLE (NVIDIA, Vulkan 1.4.312 (NVIDIA NVIDIA H200 (0x00002335)), NVIDIA) | OpenGL ES 3.0.0')).to.equal(false);
      expect(isSoftwareRasterizer('ANGLE (AMD, Vulkan 1.3.270 (AMD Radeon Pro W6800 (RADV NAVI21)), radv)')).to.equal(false);
    });

    it('without a GPU auto takes cpu, and one log line says why (a software rasterizer, or no context)', async function () {
      const log = captureLog();
      const { compositor, report } = await createCompositor({ choice: 'auto', workers: 0, logger: log.logger('renderer', 'info') });
      try {
        const gl = await glOrNull();
        const software = gl ? isSoftwareRasterizer(gl.description) : true;
        await gl?.close();
        if (!software) this.skip(); // a real GPU: the choice is measured (the next tests)
        expect(compositor.name).to.equal('cpu');
        expect(report.choice).to.equal('auto');
        expect(report.reason).to.match(/software rasterizer|no WebGL2 context/);
        const lines = log.entries(30).filter((e) => String(e.msg).startsWith('render backend:'));
        expect(lines, log.text()).to.have.length(1);
        expect(lines[0]!.msg).to.contain(report.reason);
        expect(lines[0]!.backend).to.equal('cpu');
      } finally {
        await compositor.close();
      }
    });

    it('measures both backends on the same pictures: timings for each, parity of gl against cpu within the contract', async function () {
      const gl = await glOrNull();
      if (!gl) this.skip();
      const cpu = await CpuCompositor.create({ workers: 0, logger: quietLogger });
      try {
        const store = new AssetStore({ dir: await testAssets(), cacheBytes: 256 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
        const pictures = await probePictures({ store, sets: [TEST_SET], reference: cpu });
        expect(pictures!.set).to.equal(TEST_SET);
        expect(pictures!.jobs.map((j) => j.name)).to.deep.equal(['400 px', '480 px', '400 px transparent']);
        const [mc, mg] = await measureCompositors([cpu, gl!], pictures!.jobs, { reps: 3 });
        for (const m of [mc!, mg!]) {
          expect(Object.keys(m.ms)).to.deep.equal(['400 px', '480 px']);
          for (const ms of Object.values(m.ms)) expect(ms).to.be.greaterThan(0);
        }
        expect(mc!.parity).to.equal(null);
        expect(mg!.parity!.maxDiff).to.be.at.most(PARITY_MAX_CODE_DIFF);
        expect(mg!.parity!.psnr).to.be.at.least(PARITY_MIN_PSNR_DB);
        expect(mg!.refused).to.equal(null);
        console.log(`      cpu ${JSON.stringify(mc!.ms)}, gl ${JSON.stringify(mg!.ms)} (${gl!.description})`);
      } finally {
        await gl!.close();
        await cpu.close();
      }
    });
  });

  describe('error', () => {
    it('refuses a candidate whose pictures break the parity contract, whatever it measures', async () => {
      const cpu = await CpuCompositor.create({ workers: 0, logger: quietLogger });
      const other = await CpuCompositor.create({ workers: 0, logger: quietLogger });
      try {
        const store = new AssetStore({ dir: await testAssets(), cacheBytes: 256 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
        const pictures = await probePictures({ store, sets: [TEST_SET], reference: cpu });
        const [, off] = await measureCompositors([cpu, new OffByThree(other)], pictures!.jobs, { reps: 1 });
        expect(off!.parity!.maxDiff).to.equal(3);
        expect(off!.refused).to.match(/parity contract/);
      } finally {
        await cpu.close();
        await other.close();
      }
    });

    it('with no asset set to measure with, auto still starts, on cpu', async () => {
      const { compositor, report } = await createCompositor({ choice: 'auto', workers: 0, logger: quietLogger, probe: async () => null });
      try {
        expect(compositor.name).to.equal('cpu');
        expect(report.reason).to.match(/^auto: /);
      } finally {
        await compositor.close();
      }
    });
  });

  describe('operators see the choice', () => {
    it('DescribeRenderer over gRPC and the renderer_backend_info metric say which backend and why', async () => {
      const s = await startTestServer({ backend: 'auto' });
      try {
        const info = await s.client.describeRenderer();
        expect(info.backend).to.equal(s.internals.backend.name);
        expect(info.choice).to.equal('auto');
        expect(info.reason).to.equal(s.internals.backendReport.reason);
        expect(info.description).to.equal(s.internals.backend.description);
        expect(info.measured).to.have.length(s.internals.backendReport.measured.length);
        const metrics = await s.metrics.metrics();
        expect(metrics).to.match(new RegExp(`renderer_backend_info\\{backend="${info.backend}",renderer="[^"]*",choice="auto",measured="(true|false)"\\} 1`));
      } finally {
        await s.close();
      }
    });

    it('RENDER_BACKEND=cpu is forced, says so, and measures nothing', async () => {
      const s = await startTestServer({ backend: 'cpu' });
      try {
        const info = await s.client.describeRenderer();
        expect(info).to.include({ backend: 'cpu', choice: 'cpu', reason: 'RENDER_BACKEND=cpu' });
        expect(info.measured).to.deep.equal([]);
      } finally {
        await s.close();
      }
    });
  });

  describe('the asset store makes what the chosen backend uses', () => {
    it('levels carry the cpu kernel\'s data (shadowed base, output picture) for the cpu backend only', async function () {
      const gl = await glOrNull();
      if (!gl) this.skip();
      await gl!.close();
      for (const backend of ['cpu', 'gl'] as const) {
        const s = await startTestServer({ backend });
        try {
          await renderBytes(s.client, req({ view: 'side_left', shadow: true, width: 480 }));
          const set = await s.internals.store.getSet(TEST_SET);
          const level = await s.internals.store.levelFor(set, 'side_left', 480);
          expect(s.internals.backend.levelExtras === CPU_LEVEL_EXTRAS).to.equal(backend === 'cpu');
          expect(Boolean(level.arena?.output), `${backend}: output picture`).to.equal(backend === 'cpu');
          if (set.views.side_left!.shadow) expect(Boolean(level.shadowedBase), `${backend}: shadowed base`).to.equal(backend === 'cpu');
        } finally {
          await s.close();
        }
      }
    });
  });
});
