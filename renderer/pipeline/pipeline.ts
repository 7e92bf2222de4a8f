import { checkDeadline, type RenderContext, type Step, type StepDeps } from './context.ts';
import { layersStep } from './steps/01-layers.ts';
import { plateStep } from './steps/02-plate.ts';
import { compositeStep } from './steps/03-composite.ts';
import { frameStep } from './steps/04-frame.ts';
import { encodeStep } from './steps/05-encode.ts';

/** The render steps in order; the deadline is checked before each. */
export const STEPS: readonly Step[] = [layersStep, plateStep, compositeStep, frameStep, encodeStep];

export async function runPipeline(ctx: RenderContext, deps: StepDeps, steps: readonly Step[] = STEPS): Promise<void> {
  try {
    for (const step of steps) {
      checkDeadline(ctx, step.name);
      const t0 = performance.now();
      await step.run(ctx, deps);
      ctx.timings[step.name] = performance.now() - t0;
    }
  } catch (e) {
    // a composited picture the encode never took back (deadline, cancel, encoder failure): its
    // buffer goes back to the backend, which may lend it to the next render of these layers
    if (ctx.image) {
      deps.backend.release?.(ctx.image);
      ctx.image = undefined;
    }
    throw e;
  }
}
