import type { RenderBackendChoice } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Compositor } from './backend.ts';
import { CpuCompositor } from './cpu/cpu-backend.ts';

/**
 * RENDER_BACKEND: `gl` needs a WebGL2 context (fails the start otherwise), `cpu` never tries one,
 * `auto` takes gl when a context can be made and says which it chose, once, in the log.
 */
export async function createCompositor(opts: {
  choice: RenderBackendChoice;
  workers: number;
  logger: Logger;
  /** Whether the render at hand is the only one running or waiting (cpu: composite it inline, CpuCompositor). */
  alone?: () => boolean;
}): Promise<Compositor> {
  const { choice, logger } = opts;
  if (choice !== 'cpu') {
    try {
      const { GlCompositor } = await import('./gl/gl-backend.ts');
      const gl = await GlCompositor.create({ logger });
      logger.info({ backend: 'gl', choice, renderer: gl.description }, `render backend: gl (${gl.description})`);
      return gl;
    } catch (e) {
      if (choice === 'gl') throw new Error(`RENDER_BACKEND=gl but no WebGL2 context: ${(e as Error).message}`);
      logger.info({ backend: 'cpu', choice, reason: (e as Error).message }, 'render backend: cpu (no WebGL2 context)');
    }
  }
  const cpu = await CpuCompositor.create({ workers: opts.workers, logger, ...(opts.alone ? { alone: opts.alone } : {}) });
  if (choice === 'cpu') logger.info({ backend: 'cpu', choice }, `render backend: cpu (${cpu.description})`);
  return cpu;
}
