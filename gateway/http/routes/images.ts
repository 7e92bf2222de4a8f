import crypto from 'node:crypto';
import { Router } from 'express';
import { MESSAGES, ServiceError } from '../../../shared/errors.ts';
import { CONTENT_TYPES } from '../../../shared/render-options.ts';
import type { ImageClaims, ImageSigner } from '../../signing/image-token.ts';
import type { ImageRenderer } from '../../render/image-renderer.ts';

const FILE_RE = /^([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\.(webp|png|jpeg|jpg)$/;
const MAX_AGE_CAP = 365 * 24 * 3600;

/** The picture's identity: the same claims (expiry aside) and set revision give the same bytes. */
export function imageEtag(c: ImageClaims): string {
  const fields: unknown[] = [c.set, c.revision, c.view, c.color, c.shadow, c.plate, c.format, c.width];
  if (c.background === 'transparent') fields.push('transparent');
  const canonical = JSON.stringify(fields);
  return `"${crypto.createHash('sha256').update(canonical).digest('base64url').slice(0, 27)}"`;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * GET /images/<token>.<ext>: not a /v1 call, not counted. Verifies the token, answers 304 to a
 * matching If-None-Match without rendering, otherwise streams the renderer's bytes.
 */
export function imageRoutes(deps: { signer: ImageSigner; renderer: ImageRenderer | null; renderTimeoutMs: number }): Router {
  const r = Router();
  r.get('/images/:file', async (req, res) => {
    const m = FILE_RE.exec(String(req.params.file));
    if (!m) throw new ServiceError('not_found', MESSAGES.notFound);
    const claims = deps.signer.verify(m[1]!);
    const ext = m[2] === 'jpg' ? 'jpeg' : m[2];
    if (ext !== claims.format) throw new ServiceError('bad_request', `This image URL is for format ${claims.format}`);

    const etag = imageEtag(claims);
    const maxAge = Math.max(0, Math.min(MAX_AGE_CAP, claims.exp - Math.floor(Date.now() / 1000)));
    const cacheHeaders = {
      ETag: etag,
      'Cache-Control': `public, max-age=${maxAge}, immutable`,
      Vary: 'Accept-Encoding',
    };
    if (etagMatches(req.headers['if-none-match'], etag)) {
      res.status(304).set(cacheHeaders).end();
      return;
    }
    if (!deps.renderer) throw new ServiceError('unavailable', MESSAGES.unavailable);

    const ac = new AbortController();
    req.on('close', () => {
      if (!res.writableFinished) ac.abort();
    });
    const out = await deps.renderer.render(
      {
        assetSet: claims.set,
        view: claims.view,
        color: claims.color,
        shadow: claims.shadow,
        plate: claims.plate,
        format: claims.format,
        width: claims.width,
        background: claims.background,
      },
      { deadlineMs: deps.renderTimeoutMs, signal: ac.signal },
    );
    res.status(200).set({
      ...cacheHeaders,
      'Content-Type': CONTENT_TYPES[claims.format],
      'Content-Length': String(out.header.byteLength),
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    for await (const chunk of out.body) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  });
  return r;
}
