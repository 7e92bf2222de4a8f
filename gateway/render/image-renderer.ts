import type { Background, ImageFormat } from '../../shared/render-options.ts';
import type { ViewId } from '../../shared/views.ts';

/** What the gateway needs of the renderer: one render call that streams the encoded bytes. */
export interface ImageRenderRequest {
  assetSet: string;
  view: ViewId;
  color: string;
  shadow: boolean;
  plate: string | null;
  format: ImageFormat;
  width: number;
  background: Background;
}

export interface ImageRenderStream {
  header: { contentType: string; width: number; height: number; byteLength: number; etag: string; warnings: string[] };
  body: AsyncIterable<Buffer>;
}

export interface ImageRenderer {
  render(req: ImageRenderRequest, opts: { deadlineMs: number; signal?: AbortSignal }): Promise<ImageRenderStream>;
}
