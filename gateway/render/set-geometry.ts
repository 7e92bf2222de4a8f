import type { Box } from '../../shared/framing.ts';
import type { Logger } from '../../shared/logger.ts';
import type { ImageRenderer } from './image-renderer.ts';

/** A view's vehicle box and ground line at full size, as the renderer found them in its coverage layer. */
export interface ViewGeometry {
  box: Box;
  groundY: number;
}

/** How long an image answer waits for a set's geometry it has not seen yet (one DescribeSet). */
const DESCRIBE_DEADLINE_MS = 3_000;
/** After a DescribeSet failed, answers carry no layout for this long instead of each waiting for another. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * The vehicle geometry of each asset set, asked of the renderer (DescribeSet) once per set revision and
 * kept: the layout metadata of image answers is computed from it without any picture being decoded.
 * Without a renderer, or while none can be reached, there is none (the answer's `layout` is null).
 */
export class SetGeometry {
  private readonly sets = new Map<string, { revision: string; views: Promise<Map<string, ViewGeometry> | null> }>();
  /** Sets whose last DescribeSet failed, until when not to ask again. */
  private readonly failedUntil = new Map<string, number>();

  constructor(
    private readonly renderer: ImageRenderer | null,
    private readonly logger?: Logger,
  ) {}

  async view(set: string, revision: string, view: string): Promise<ViewGeometry | null> {
    const views = await this.of(set, revision);
    return views?.get(view) ?? null;
  }

  private of(set: string, revision: string): Promise<Map<string, ViewGeometry> | null> {
    const describe = this.renderer?.describeSet;
    if (!describe || this.renderer?.unreachable?.()) return Promise.resolve(null);
    const known = this.sets.get(set);
    if (known && known.revision === revision) return known.views;
    if ((this.failedUntil.get(set) ?? 0) > Date.now()) return Promise.resolve(null);
    const entry = {
      revision,
      views: describe
        .call(this.renderer, set, { deadlineMs: DESCRIBE_DEADLINE_MS })
        .then((d) => {
          // a renderer that has not picked the new revision up yet describes the old one: used for this
          // answer, not kept, so the next answer asks again
          if (d.revision !== revision && this.sets.get(set) === entry) this.sets.delete(set);
          this.failedUntil.delete(set);
          const out = new Map<string, ViewGeometry>();
          for (const [id, v] of Object.entries(d.views)) {
            if (v.vehicleBox && typeof v.groundY === 'number') out.set(id, { box: v.vehicleBox, groundY: v.groundY });
          }
          return out;
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
    return entry.views;
  }
}
