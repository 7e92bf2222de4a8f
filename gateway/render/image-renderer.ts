import type { Background, ImageFormat } from '../../shared/render-options.ts';
import type { FramingOptions } from '../../shared/framing.ts';
import type { RenderTiming, SetDescription } from '../../shared/render-contract.ts';
import type { ShotId } from '../../shared/shot-id.ts';

/** What the gateway needs of the renderer: one render call that streams the encoded bytes. */
export interface ImageRenderRequest {
  assetSet: string;
  /** A view of the set, or a spin frame of a set with a 3D source. */
  view: ShotId;
  color: string;
  shadow: boolean;
  plate: string | null;
  format: ImageFormat;
  width: number;
  background: Background;
  frame: FramingOptions;
}

export interface ImageRenderStream {
  header: { contentType: string; width: number; height: number; byteLength: number; etag: string; warnings: string[]; cacheHit?: boolean; renderMs?: number };
  body: AsyncIterable<Buffer>;
  /** When the gRPC call ran (shared/render-contract.ts, RenderTiming): for measuring a download's parts. */
  timing?: RenderTiming;
}

export interface ImageRenderer {
  /**
   * `signal` aborts the call (the client went away: the renderer stops the render); `org` goes to the
   * renderer in the call's metadata, for its queue's fairness between organisations.
   */
  render(req: ImageRenderRequest, opts: { deadlineMs: number; signal?: AbortSignal; org?: string; requestId?: string }): Promise<ImageRenderStream>;
  /** The set's views as the renderer has them (vehicle boxes included: the layout metadata); absent: never asked. */
  describeSet?(id: string, opts: { deadlineMs: number }): Promise<SetDescription>;
  /** No renderer can be reached now (every address failed since it last answered); absent: never said. */
  unreachable?(): boolean;
}
