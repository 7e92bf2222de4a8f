import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { MESSAGES, ServiceError, isServiceError } from '../../../shared/errors.ts';
import { CONTENT_TYPES } from '../../../shared/render-options.ts';
import { isDefaultFraming } from '../../../shared/framing.ts';
import { LRUCache } from 'lru-cache';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { DownloadGuard, DownloadTicket } from '../../limits/download-guard.ts';
import type { ImageClaims, ImageSigner } from '../../signing/image-token.ts';
import type { ImageRenderer } from '../../render/image-renderer.ts';
import { bindRequestLog } from '../request-log.ts';

/** The least time a render is given after its download waited for a slot (never more than RENDER_TIMEOUT_MS). */
const MIN_RENDER_MS = 2_000;

// <token>.<ext>: whatever the token's shape (the signer tells a malformed token, 400, from an invalid one,
// 401, such as an unsigned `alg: none` token with an empty signature), only URL-safe token characters
const FILE_RE = /^([A-Za-z0-9_.-]+)\.(webp|png|jpeg|jpg)$/;
const MAX_AGE_CAP = 365 * 24 * 3600;

/** The picture's identity: the same claims (expiry aside) and set revision give the same bytes. */
export function imageEtag(c: Pick<ImageClaims, 'set' | 'revision' | 'view' | 'color' | 'shadow' | 'plate' | 'format' | 'width' | 'background'> & Partial<ImageClaims>): string {
  const fields: unknown[] = [c.set, c.revision, c.view, c.color, c.shadow, c.plate, c.format, c.width];
  if (c.background === 'transparent') fields.push('transparent');
  // the default framing adds nothing: pictures signed before framing existed keep their ETags
  if (c.frame && !isDefaultFraming(c.frame)) fields.push(['frame', c.frame.framing, c.frame.aspect, c.frame.margin]);
  const canonical = JSON.stringify(fields);
  return `"${crypto.createHash('sha256').update(canonical).digest('base64url').slice(0, 27)}"`;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export interface ImageRouteDeps {
  signer: ImageSigner;
  renderer: ImageRenderer | null;
  renderTimeoutMs: number;
  authenticator: Authenticator;
  guard: DownloadGuard;
  /** Longest max-age given to a downloaded image: how long a cache may serve it without asking again. */
  cacheMaxAgeSeconds: number;
  /** Pictures this gateway served recently: HEAD is answered from here without rendering. */
  knownImages?: LRUCache<string, KnownImage>;
}

export interface KnownImage {
  contentType: string;
  byteLength: number;
}

/** Marks a request whose URL holds a secret (the image token): the log shows the route, not the URL. */
export const REDACTED_IMAGE_URL = '/images/…';

/**
 * GET /images/<token>.<ext>: not a /v1 call, not counted. Verifies the token and re-checks its grant
 * (key, bans, contract, format, category, publication: the /v1 authentication path and cache),
 * answers 304 to a matching If-None-Match and HEAD for a known picture without rendering, otherwise
 * renders under the organisation's download guard and streams the renderer's bytes. A client that
 * goes away cancels the gRPC call and so the render.
 */
export function imageRoutes(deps: ImageRouteDeps): Router {
  const r = Router();
  const known = deps.knownImages ?? new LRUCache<string, KnownImage>({ max: 20_000 });
  r.get('/images/:file', async (req, res) => {
    // Whether the client is still there, watched from the first line: a client that leaves while the
    // grant is checked (a slow database) must not leave a render slot held by a write nobody drains.
    const ac = new AbortController();
    const onGone = () => {
      if (!res.writableFinished) ac.abort();
    };
    res.on('close', onGone);
    if (res.closed || req.socket.destroyed) ac.abort();
    try {
      await download(req, res, ac.signal);
    } finally {
      res.off('close', onGone);
    }
  });

  async function download(req: Request, res: Response, gone: AbortSignal): Promise<void> {
    (req as { redactedUrl?: string }).redactedUrl = REDACTED_IMAGE_URL;
    res.set('Cache-Control', 'no-store'); // refusals are not cached; a success sets its own
    const m = FILE_RE.exec(String(req.params.file));
    if (!m) throw new ServiceError('not_found', MESSAGES.notFound);
    const claims = deps.signer.verify(m[1]!);
    const ext = m[2] === 'jpg' ? 'jpeg' : m[2];
    if (ext !== claims.format) throw new ServiceError('bad_request', `This image URL is for format ${claims.format}`);
    bindRequestLog(req, { org: claims.org, key: claims.key });
    await deps.authenticator.authorizeDownload({
      org: claims.org,
      key: claims.key,
      vehicle: claims.vehicle,
      view: claims.catalogView,
      format: claims.format,
    });
    if (gone.aborted) return; // nobody to answer

    const etag = imageEtag(claims);
    const maxAge = Math.max(0, Math.min(MAX_AGE_CAP, deps.cacheMaxAgeSeconds, claims.exp - Math.floor(Date.now() / 1000)));
    const cacheHeaders = {
      ETag: etag,
      'Cache-Control': `public, max-age=${maxAge}, immutable`,
      Vary: 'Accept-Encoding',
    };
    if (etagMatches(req.headers['if-none-match'], etag)) {
      res.status(304).set(cacheHeaders).end();
      return;
    }
    const seen = known.get(etag);
    if (req.method === 'HEAD' && seen) {
      res.status(200).set({
        ...cacheHeaders,
        'Content-Type': seen.contentType,
        'Content-Length': String(seen.byteLength),
        'X-Content-Type-Options': 'nosniff',
      });
      res.end();
      return;
    }
    if (!deps.renderer) throw new ServiceError('unavailable', MESSAGES.unavailable);

    let ticket: DownloadTicket;
    try {
      // over the organisation's renders in flight the download waits for a slot (bounded)
      ticket = await deps.guard.admit(claims.org, seen !== undefined, { signal: gone });
    } catch (e) {
      if (gone.aborted) return; // the client went away while waiting: nobody to answer
      throw e;
    }
    let miss = true;
    try {
      let out: Awaited<ReturnType<ImageRenderer['render']>>;
      try {
        out = await deps.renderer.render(
          {
            assetSet: claims.set,
            view: claims.view,
            color: claims.color,
            shadow: claims.shadow,
            plate: claims.plate,
            format: claims.format,
            width: claims.width,
            background: claims.background,
            frame: claims.frame,
          },
          // the time spent waiting for a slot comes out of the render's time
          { deadlineMs: Math.max(Math.min(MIN_RENDER_MS, deps.renderTimeoutMs), deps.renderTimeoutMs - ticket.waitedMs), signal: gone, org: claims.org, requestId: typeof req.id === 'string' ? req.id : undefined },
        );
      } catch (e) {
        // nothing was rendered (no renderer, or one too busy to take it): not a render of the minute
        if (isServiceError(e) && (e.code === 'unavailable' || e.code === 'resource_exhausted')) miss = false;
        if (gone.aborted) return; // the client went away: nobody to answer
        throw e;
      }
      miss = out.header.cacheHit !== true;
      const contentType = CONTENT_TYPES[claims.format];
      known.set(etag, { contentType, byteLength: out.header.byteLength });
      const it = out.body[Symbol.asyncIterator]();
      if (gone.aborted) {
        await it.return?.();
        return;
      }
      res.status(200).set({
        ...cacheHeaders,
        'Content-Type': contentType,
        'Content-Length': String(out.header.byteLength),
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.method === 'HEAD') {
        await it.return?.();
        res.end();
        return;
      }
      try {
        // The body is written as it comes, without waiting for 'drain' between chunks: the render
        // client has read the whole picture already (renderer-pool.ts), so waiting only spread the
        // writes over an event-loop turn each (a 1 MiB png: 17) and held nothing less in memory
        for (;;) {
          const next = await it.next();
          if (next.done) break;
          if (gone.aborted) break;
          res.write(next.value);
        }
      } finally {
        if (gone.aborted) await it.return?.();
      }
      if (!gone.aborted) res.end();
    } finally {
      ticket.release(miss);
    }
  }
  return r;
}
