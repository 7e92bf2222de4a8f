import { ServiceError } from '../../shared/errors.ts';
import type { RenderRequest } from '../../shared/render-request.ts';
import type { AssetStore, ShotSet } from '../assets/asset-store.ts';
import type { Layers } from '../assets/layers.ts';
import type { ViewMeta } from '../../shared/asset-format/read-set.ts';
import type { Compositor, PlatePlacement, RgbImage } from '../backends/backend.ts';
import type { Encoded } from '../encode/encode.ts';
import type { FrameGeometry } from '../../shared/framing.ts';

/** What the steps share: the resolved request, its deadline, and each step's product. */
export interface RenderContext {
  req: RenderRequest;
  /** The asset set, or for a spin frame the frames at its bake width (renderer/spin/frame-baker.ts). */
  set: ShotSet;
  view: ViewMeta;
  /** Epoch ms after which the render is abandoned; single flight pushes it out to the latest waiter's. */
  deadline: { at: number };
  /** Where the output's frame lies on the shot (shared/framing.ts); absent: the whole shot at the request's width. */
  frame?: FrameGeometry;
  /** Aborted when nobody waits for this render any more (every caller cancelled): it stops between steps. */
  signal?: AbortSignal;
  layers?: Layers;
  plate?: PlatePlacement | null;
  image?: RgbImage;
  /** The framing step's picture at the output size: the render's own memory, not the backend's. */
  framed?: RgbImage;
  encoded?: Encoded;
  /** Set by the encode step: the one resize, level size → output size; null when the level already is the output size. */
  resize?: { from: [number, number]; to: [number, number] } | null;
  timings: Record<string, number>;
}

export interface StepDeps {
  store: AssetStore;
  backend: Compositor;
}

export interface Step {
  name: string;
  run(ctx: RenderContext, deps: StepDeps): Promise<void> | void;
}

export function checkDeadline(ctx: RenderContext, before: string): void {
  if (ctx.signal?.aborted) {
    throw new ServiceError('unavailable', `The render was cancelled before ${before}`);
  }
  if (Date.now() > ctx.deadline.at) {
    throw new ServiceError('deadline_exceeded', `The deadline passed before ${before}`);
  }
}
