import { expect } from 'chai';
import { VIEW_IDS } from '../../shared/views.ts';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import type { Compositor, RgbImage } from '../../renderer/backends/backend.ts';
import { CpuCompositor } from '../../renderer/backends/cpu/cpu-backend.ts';
import { PARITY_MAX_CODE_DIFF, PARITY_MIN_PSNR_DB, combineDifferences, compareImages, describeDifference, withinParity, type ImageDifference } from '../../renderer/backends/parity.ts';
import { GL_REQUIRED, TEST_SET, TEST_SET8, compositeJob, decode, psnr, quietLogger, renderBytes, req, startTestServer, testAssets } from './helpers.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';

/** Creates the gl compositor, or skips (saying why) unless CI=true / REQUIRE_GL=1, where failing to is a failure. */
async function glOrSkip(ctx: Mocha.Context): Promise<Compositor | null> {
  try {
    const { GlCompositor } = await import('../../renderer/backends/gl/gl-backend.ts');
    return await GlCompositor.create({ logger: quietLogger });
  } catch (e) {
    if (GL_REQUIRED) throw new Error(`gl backend required (CI=true or REQUIRE_GL=1) but unavailable: ${(e as Error).message}`);
    console.log(`      SKIPPED gl tests: no WebGL2 context (${(e as Error).message}); set REQUIRE_GL=1 to make this fail`);
    ctx.skip();
    return null;
  }
}

/** RGB, or RGBA when the picture has a real alpha channel (transparent background). */
function rgb(img: RgbImage): Uint8Array {
  if (img.channels === 3 || img.alpha) return img.data;
  const out = new Uint8Array(img.width * img.height * 3);
  for (let i = 0, j = 0; i < out.length; i += 3, j += 4) {
    out[i] = img.data[j]!;
    out[i + 1] = img.data[j + 1]!;
    out[i + 2] = img.data[j + 2]!;
  }
  return out;
}

describe('gl backend (headless-gl + three.js, WebGL 2)', function () {
  this.timeout(120_000);
  let gl: Compositor | null = null;
  let cpu: Compositor;

  before(async function () {
    gl = await glOrSkip(this);
    cpu = await CpuCompositor.create({ workers: 0, logger: quietLogger });
  });
  after(async () => {
    await gl?.close();
    await cpu?.close();
  });

  it('reports the ANGLE renderer string', () => {
    expect(gl!.name).to.equal('gl');
    expect(gl!.description).to.match(/ANGLE/);
  });

  /** Prints the corpus figure and the worst picture, then holds it to the parity contract (parity.ts). */
  function report(name: string, results: { d: ImageDifference; name: string }[]): void {
    const all = combineDifferences(results.map((r) => r.d));
    const worst = [...results].sort((x, y) => y.d.maxDiff - x.d.maxDiff || x.d.psnr - y.d.psnr)[0]!;
    const lowest = [...results].sort((x, y) => x.d.psnr - y.d.psnr)[0]!;
    console.log(`      ${name}: ${results.length} pictures, ${describeDifference(all)}`);
    console.log(`        worst pixel in ${worst.name}: ${describeDifference(worst.d)}`);
    console.log(`        lowest PSNR in ${lowest.name}: ${describeDifference(lowest.d)}`);
    for (const r of results) {
      expect(r.d.maxDiff, `${r.name}: ${describeDifference(r.d)}`).to.be.at.most(PARITY_MAX_CODE_DIFF);
      expect(r.d.psnr, `${r.name}: ${describeDifference(r.d)}`).to.be.at.least(PARITY_MIN_PSNR_DB);
    }
    expect(withinParity(all)).to.equal(true);
  }

  /**
   * The parity contract over the 432 studio-background pictures (every view × 3 widths × 4 colours ×
   * shadow/plate on/off) and their 432 transparent variants: at most 2 codes apart in any channel of
   * any pixel, PSNR ≥ 60 dB. The worst pixel is printed.
   */
  it('agrees with the cpu backend within the parity contract over the 432 studio pictures and their 432 transparent variants', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 256 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET);
    const results: { transparent: boolean; d: ImageDifference; name: string }[] = [];
    for (const view of VIEW_IDS) {
      for (const width of [200, 331, 480]) {
        for (const color of ['#C41E3A', '#1A1A1A', '#F5F5F5', '#1E4B8C']) {
          for (const [shadow, plate] of [
            [false, null],
            [true, null],
            [false, 'AB 1234'],
            [true, 'XY-98 ÄÖ'],
          ] as const) {
            for (const transparent of [false, true]) {
              const job = await compositeJob(store, cpu, set, { view, color, shadow, plate, transparent, width });
              const ci = await cpu.composite(job);
              const gi = await gl!.composite(job);
              results.push({ transparent, d: compareImages(ci, gi), name: `${view} w=${width} ${color} shadow=${shadow} plate=${plate}` });
              // given back, as a render does: the cpu backend's next picture of these layers goes in
              // place into the layers' own output picture, with their palette (what production runs)
              cpu.release?.(ci);
              gl!.release?.(gi);
            }
          }
        }
      }
    }
    for (const transparent of [false, true]) {
      const rs = results.filter((r) => r.transparent === transparent);
      expect(rs.length).to.equal(432);
      report(transparent ? 'transparent' : 'studio', rs);
    }
  });

  it('agrees with the cpu backend within the parity contract where it takes fully painted pixels from level palettes (8-bit light)', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 256 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET8);
    const c = cpu as CpuCompositor;
    const before = c.paletteComposites;
    const results: { d: ImageDifference; name: string }[] = [];
    for (const view of ['front_left', 'side_left', 'rear'] as const) {
      for (const color of ['#C41E3A', '#1A1A1A', '#F5F5F5', '#1E4B8C']) {
        for (const [shadow, plate] of [
          [false, null],
          [true, 'XY-98 ÄÖ'],
        ] as const) {
          const job = await compositeJob(store, cpu, set, { view, color, shadow, plate, transparent: false, width: 480 });
          await store.tablesBuilt();
          const ci = await cpu.composite(job);
          const gi = await gl!.composite(job);
          results.push({ d: compareImages(ci, gi), name: `${view} ${color} shadow=${shadow} plate=${plate}` });
          cpu.release?.(ci);
          gl!.release?.(gi);
        }
      }
    }
    expect(c.paletteComposites - before, 'every cpu picture took its colours from a palette').to.equal(results.length);
    report('palettes', results);
  });

  it('draws only the changing box after a level\'s first picture, to the same bytes as a whole draw', async () => {
    const { GlCompositor } = await import('../../renderer/backends/gl/gl-backend.ts');
    const full = await GlCompositor.create({ logger: quietLogger, readback: 'full' });
    try {
      const store = new AssetStore({ dir: await testAssets(), cacheBytes: 256 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
      const set = await store.getSet(TEST_SET);
      // plate first, then none, then another colour with a plate: the kept background must hold no plate
      for (const [color, plate, shadow] of [
        ['#C41E3A', 'AB 1234', true],
        ['#1E4B8C', null, true],
        ['#F5F5F5', 'XY-98', true],
        ['#1A1A1A', null, false],
        ['#2E8B57', 'Q 1', false],
      ] as const) {
        for (const transparent of [false, true]) {
          const job = await compositeJob(store, cpu, set, { view: 'front_left', color, shadow, plate, transparent, width: 480 });
          const a = await gl!.composite(job);
          const b = await full.composite(job);
          const d = compareImages(a, b);
          expect(d.maxDiff, `${color} plate=${plate} shadow=${shadow} transparent=${transparent}: ${describeDifference(d)}`).to.equal(0);
          gl!.release?.(a);
          full.release?.(b);
        }
      }
    } finally {
      await full.close();
    }
  });

  it('serves gl renders over gRPC that match the cpu server', async () => {
    const g = await startTestServer({ backend: 'gl' });
    const c = await startTestServer({ backend: 'cpu' });
    try {
      expect(g.internals.backend.name).to.equal('gl');
      for (const format of ['png', 'webp', 'jpeg'] as const) {
        const r = req({ view: 'front_left', plate: 'M-AB 123', shadow: true, format, width: 360 });
        const a = await decode((await renderBytes(g.client, r)).bytes);
        const b = await decode((await renderBytes(c.client, r)).bytes);
        expect(a.width).to.equal(360);
        expect(a.format).to.equal(format);
        expect(psnr(a.data, b.data), format).to.be.at.least(35);
      }
    } finally {
      await g.close();
      await c.close();
    }
  });
});
