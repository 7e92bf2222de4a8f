import type { Box } from '../../shared/framing.ts';
import type { Logger } from '../../shared/logger.ts';
import type { SpinDescription } from '../../shared/render-contract.ts';
import type { ImageRenderer } from './image-renderer.ts';

/** A view's vehicle box and ground line at full size, as the renderer found them in its coverage layer. */
export interface ViewGeometry {
  box: Box;
  groundY: number;
}

/** What the gateway keeps of a DescribeSet: the views' geometry, and the spin's (null: the set has no spin). */
interface SetShape {
  views: Map<string, ViewGeometry>;
  spin: SpinDescription | null;
}

/** A set's spin as far as the renderer could tell: `known` false when it could not be asked. */
export type SpinLookup = { known: false } | { known: true; spin: SpinDescription | null };

/** How long an image answer waits for a set's geometry it has not seen yet (one DescribeSet). */
const DESCRIBE_DEADLINE_MS = 3_000;
/** After a DescribeSet failed, answers carry no layout for this long instead of each waiting for another. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * The vehicle geometry of each asset set, asked of the renderer (DescribeSet) once per set revision and
 * kept: the layout metadata of image answers, and whether a set has a spin with each frame's geometry,
 * are computed from it without any picture being decoded.
 * Without a renderer, or while none can be reached, there is none (the answer's `layout` is null; the
 * spin call cannot tell whether there is a spin).
 */
export class SetGeometry {
  private readonly sets = new Map<string, { revision: string; shape: Promise<SetShape | null> }>();
  /** Sets whose last DescribeSet failed, until when not to ask again. */
  private readonly failedUntil = new Map<string, number>();

  constructor(
    private readonly renderer: ImageRenderer | null,
    private readonly logger?: Logger,
  ) {}

  async view(set: string, revision: string, view: string): Promise<ViewGeometry | null> {
    const shape = await this.of(set, revision);
    return shape?.views.get(view) ?? null;
  }

  /** The set's spin geometry; `revision` is the catalog's (as for views). */
  async spin(set: string, revision: string): Promise<SpinLookup> {
    const shape = await this.of(set, revision);
    return shape ? { known: true, spin: shape.spin } : { known: false };
  }

  private of(set: string, revision: string): Promise<SetShape | null> {
    const describe = this.renderer?.describeSet;
    if (!describe || this.renderer?.unreachable?.()) return Promise.resolve(null);
    const known = this.sets.get(set);
    if (known && known.revision === revision) return known.shape;
    if ((this.failedUntil.get(set) ?? 0) > Date.now()) return Promise.resolve(null);
    const entry = {
      revision,
      shape: describe
        .call(this.renderer, set, { deadlineMs: DESCRIBE_DEADLINE_MS })
        .then((d): SetShape => {
          // a renderer that has not picked the new revision up yet describes the old one: used for this
          // answer, not kept, so the next answer asks again
          if (d.revision !== revision && this.sets.get(set) === entry) this.sets.delete(set);
          this.failedUntil.delete(set);
          const views = new Map<string, ViewGeometry>();
          for (const [id, v] of Object.entries(d.views)) {
            if (v.vehicleBox && typeof v.groundY === 'number') views.set(id, { box: v.vehicleBox, groundY: v.groundY });
          }
          return { views, spin: d.spin };
        })
        .catch((err: unknown) => {
          // not kept; asked again once RETRY_AFTER_FAILURE_MS have passed
          if (this.sets.get(set) === entry) this.sets.delete(set);
          this.failedUntil.set(set, Date.now() + RETRY_AFTER_FAILURE_MS);
          this.logger?.warn({ err, set }, 'set geometry unavailable; image answers carry no layout');
          return null;
        }),
    };
    this.sets.set(set, entry);
    return entry.shape;
  }
}
