import type { RenderBackendChoice } from '../../shared/config-fields.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Compositor } from './backend.ts';
import { CpuCompositor } from './cpu/cpu-backend.ts';
import type { CpuMechanisms } from './cpu/mechanisms.ts';
import { measureCompositors, type CandidateMeasurement, type ProbeJob } from './measure.ts';
import { describeDifference } from './parity.ts';

/** GL renderers that rasterize on the CPU (Mesa's llvmpipe/lavapipe/softpipe, SwiftShader, Microsoft's WARP). */
const SOFTWARE_RASTERIZER = /llvmpipe|lavapipe|softpipe|swiftshader|software rasterizer|microsoft basic render/i;

export function isSoftwareRasterizer(glRenderer: string): boolean {
  return SOFTWARE_RASTERIZER.test(glRenderer);
}

/** How the backend was chosen: the log line, the renderer_backend_* metrics and gRPC DescribeRenderer. */
export interface BackendReport {
  choice: RenderBackendChoice;
  backend: 'gl' | 'cpu';
  description: string;
  /** In words: forced, measured faster, gl refused and why… */
  reason: string;
  /** Each candidate's figures (auto with both backends); empty otherwise. */
  measured: CandidateMeasurement[];
  /** The measurement's own cost (pictures made, composites timed), ms. */
  measureMs: number;
  /** What was composited: the set and view, or null when nothing was measured. */
  probe: { set: string; view: string } | null;
}

export interface ProbePictures {
  set: string;
  view: string;
  jobs: ProbeJob[];
}

export interface SelectOptions {
  choice: RenderBackendChoice;
  workers: number;
  logger: Logger;
  /** Whether the render at hand is the only one running or waiting (cpu: composite it inline, CpuCompositor). */
  alone?: () => boolean;
  /** The cpu backend's mechanisms (default all on; benchmarks turn some off, cpu/mechanisms.ts). */
  cpuMechanisms?: CpuMechanisms;
  /** The pictures `auto` measures with (a committed set at a small and its largest level); null: none to be had. */
  probe?: (reference: Compositor) => Promise<ProbePictures | null>;
}

/**
 * RENDER_BACKEND: `gl` needs a WebGL2 context (fails the start otherwise), `cpu` never tries one.
 * `auto` creates every backend it can, composites the same pictures on each, refuses one that breaks
 * the parity contract or rasterizes in software, and keeps the faster (docs/renderer.md, "Choosing
 * the backend"). One log line says what it measured and why it chose.
 */
export async function createCompositor(opts: SelectOptions): Promise<{ compositor: Compositor; report: BackendReport }> {
  const { choice, logger } = opts;
  const cpu = () => CpuCompositor.create({ workers: opts.workers, logger, ...(opts.alone ? { alone: opts.alone } : {}), ...(opts.cpuMechanisms ? { mechanisms: opts.cpuMechanisms } : {}) });
  const done = (compositor: Compositor, reason: string, extra: Partial<BackendReport> = {}) => {
    const report: BackendReport = { choice, backend: compositor.name, description: compositor.description, reason, measured: [], measureMs: 0, probe: null, ...extra };
    logger.info(
      { backend: report.backend, choice, renderer: report.description, reason, measured: report.measured.length ? report.measured : undefined, measureMs: report.measureMs || undefined },
      `render backend: ${report.backend} (${report.description}): ${reason}`,
    );
    return { compositor, report };
  };

  if (choice === 'cpu') return done(await cpu(), 'RENDER_BACKEND=cpu');
  let gl: Compositor;
  try {
    const { GlCompositor } = await import('./gl/gl-backend.ts');
    gl = await GlCompositor.create({ logger });
  } catch (e) {
    if (choice === 'gl') throw new Error(`RENDER_BACKEND=gl but no WebGL2 context: ${(e as Error).message}`);
    return done(await cpu(), `auto: no WebGL2 context (${(e as Error).message})`);
  }
  if (choice === 'gl') return done(gl, 'RENDER_BACKEND=gl');

  if (isSoftwareRasterizer(gl.description)) {
    // not measured: it composites a 2400 px picture in 110-250 ms against about 2 ms on the cpu
    // backend (docs/performance-renderer.md, "GPU"), and measuring it would cost the start a second
    const reason = `auto: gl refused, ${gl.description} is a software rasterizer (not measured: it composites a 2400 px picture 50-100x slower than the cpu backend)`;
    await gl.close();
    return done(await cpu(), reason);
  }
  const c = await cpu();
  const t0 = performance.now();
  let pictures: ProbePictures | null = null;
  try {
    pictures = (await opts.probe?.(c)) ?? null;
  } catch (e) {
    logger.warn({ err: e }, 'render backend: the pictures to measure with could not be made');
  }
  if (!pictures || pictures.jobs.length === 0) {
    // nothing to compare or time: the cpu backend is the one that is never slow by surprise
    await gl.close();
    return done(c, 'auto: no asset set to measure with');
  }
  const tPictures = Math.round(performance.now() - t0);
  let measured: CandidateMeasurement[];
  try {
    measured = await measureCompositors([c, gl], pictures.jobs);
  } catch (e) {
    // a gl that fails its measurement is not trusted with customers' pictures
    logger.warn({ err: e, renderer: gl.description }, 'render backend: gl failed while measured');
    await gl.close().catch(() => undefined);
    return done(c, `auto: gl failed while measured (${(e as Error).message})`);
  }
  const measureMs = Math.round(performance.now() - t0);
  const [mc, mg] = measured as [CandidateMeasurement, CandidateMeasurement];
  const figures = pictures.jobs
    .filter((j) => j.timed)
    .map((j) => `${j.name}: cpu ${mc.ms[j.name]} ms, gl ${mg.ms[j.name]} ms`)
    .join('; ');
  logger.debug({ picturesMs: tPictures, measureMs }, 'render backend: measurement cost');
  const extra = { measured, measureMs, probe: { set: pictures.set, view: pictures.view } };
  if (mg.refused) {
    if (mg.parity) logger.warn({ renderer: gl.description, parity: mg.parity }, `render backend: gl refused, ${mg.refused}: ${describeDifference(mg.parity)}`);
    await gl.close();
    return done(c, `auto: gl refused (${mg.refused}); ${figures}`, extra);
  }
  if (mg.totalMs < mc.totalMs) {
    await c.close();
    return done(gl, `auto: gl measured faster; ${figures}; parity ${describeDifference(mg.parity!)}`, extra);
  }
  await gl.close();
  return done(c, `auto: cpu measured faster; ${figures}`, extra);
}
