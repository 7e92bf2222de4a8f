import type { RenderRequest } from '../shared/render-request.ts';
import type { AssetStore } from './assets/asset-store.ts';
import type { CompositeJob, Compositor } from './backends/backend.ts';
import type { ProbeJob } from './backends/measure.ts';
import type { ProbePictures } from './backends/select.ts';
import type { RenderContext } from './pipeline/context.ts';
import { layersStep } from './pipeline/steps/01-layers.ts';
import { plateStep } from './pipeline/steps/02-plate.ts';
import { compositeJobOf } from './pipeline/steps/03-composite.ts';
import { pickView } from './warm-up.ts';

/**
 * The pictures RENDER_BACKEND=auto measures the backends with: the warm-up's view (the first set's
 * first view with a plate and a shadow) at the warm-up's width and at its full size, shadow and plate
 * on, plus the small one on a transparent background where the view has one (compared, not timed).
 * The layers come from the renderer's own store, so the warm-up and the first customers find them
 * there: the measurement itself costs only its composites.
 */
export async function probePictures(deps: { store: AssetStore; sets: readonly string[]; reference: Compositor }): Promise<ProbePictures | null> {
  const { store, sets } = deps;
  const target = await pickView(store, sets);
  if (!target) return null;
  const set = await store.getSet(target.set);
  const view = set.views[target.view]!;
  const jobs: ProbeJob[] = [];
  const make = async (name: string, width: number, transparent: boolean, timed: boolean) => {
    const req: RenderRequest = { assetSet: set.id, view: target.view, color: '#7A8B9C', shadow: true, plate: 'AB 123', format: 'png', width, background: transparent ? 'transparent' : 'studio' };
    jobs.push({ name, job: await compositeJobFor(store, deps.reference, req), timed });
  };
  await make(`${target.width} px`, target.width, false, true);
  await make(`${view.width} px`, view.width, false, true);
  if (target.coverage) await make(`${target.width} px transparent`, target.width, true, false);
  await store.tablesBuilt();
  return { set: set.id, view: target.view, jobs };
}

/** The compositor's job for a request, its layers and plate made by the pipeline's own steps (what 03-composite.ts hands the backend). */
export async function compositeJobFor(store: AssetStore, backend: Compositor, req: RenderRequest): Promise<CompositeJob> {
  const set = await store.getSet(req.assetSet);
  const ctx: RenderContext = { req, set, view: store.view(set, req.view), deadline: { at: Infinity }, timings: {} };
  await layersStep.run(ctx, { store, backend });
  await plateStep.run(ctx, { store, backend });
  return compositeJobOf(ctx);
}
