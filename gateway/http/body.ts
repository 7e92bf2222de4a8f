import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import type { RequestHandler } from 'express';
import { ServiceError } from '../../shared/errors.ts';
import { continueIfExpected } from './parser-refusals.ts';

/**
 * Request bodies of the admin API, read only after the bearer token was checked (app.ts mounts this
 * behind it): a byte limit per route that holds for the decompressed bytes too, compressed bodies
 * refused once they inflate more than `maxRatio` times their compressed size (ratio bombs), and a
 * deadline for the whole body (slow senders). Refusals are ServiceErrors: 413 payload_too_large,
 * 408 request_timeout, 400 bad_request.
 */
export interface BodyLimits {
  limitBytes: number;
  maxRatio: number;
  timeoutMs: number;
}

/** Below this many inflated bytes the ratio is not judged (tiny bodies compress oddly). */
const RATIO_FLOOR_BYTES = 64 * 1024;

export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

const tooLarge = (what: string) => new ServiceError('payload_too_large', `The request body is larger than ${what}`);

function decoder(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch (encoding) {
    case 'identity':
    case '':
      return null;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new ServiceError('bad_request', 'Unsupported Content-Encoding (identity, gzip, deflate or br)');
  }
}

/** Reads the whole body within the limits; rejects with a ServiceError and stops reading on a breach. */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const limitText = limits.limitBytes >= 1024 * 1024 ? `${Math.round(limits.limitBytes / 1024 / 1024)} MB` : `${Math.round(limits.limitBytes / 1024)} KB`;
  const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : null;
  if (declared !== null && (!Number.isFinite(declared) || declared > limits.limitBytes)) return Promise.reject(tooLarge(limitText));
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let inflate: ReturnType<typeof decoder>;
  try {
    inflate = decoder(encoding);
  } catch (e) {
    return Promise.reject(e);
  }

  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let raw = 0;
    let out = 0;
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onRaw);
      req.off('end', onRawEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (inflate) {
        inflate.removeAllListeners('data');
        inflate.removeAllListeners('end');
        inflate.on('error', () => {});
        inflate.destroy();
      }
      if (err) {
        req.pause(); // read nothing more; the answer closes the connection
        reject(err);
      } else {
        resolve(Buffer.concat(chunks));
      }
    };
    const timer = setTimeout(() => finish(new ServiceError('request_timeout', 'The request body was not received in time')), limits.timeoutMs);
    const onOut = (c: Buffer) => {
      out += c.length;
      if (out > limits.limitBytes) return finish(tooLarge(`${limitText} (decompressed)`));
      if (inflate && out > RATIO_FLOOR_BYTES && out > raw * limits.maxRatio) {
        return finish(new ServiceError('payload_too_large', 'The compressed request body expands too much'));
      }
      chunks.push(c);
    };
    const onRaw = (c: Buffer) => {
      raw += c.length;
      if (raw > limits.limitBytes) return finish(tooLarge(limitText));
      if (inflate) inflate.write(c);
      else onOut(c);
    };
    const onRawEnd = () => {
      if (inflate) inflate.end();
      else finish(null);
    };
    const onError = (e: Error) => finish(new ServiceError('bad_request', 'The request body could not be read', { cause: e }));
    const onAborted = () => finish(new ServiceError('bad_request', 'The request body was cut off'));
    if (inflate) {
      inflate.on('data', onOut);
      inflate.on('end', () => finish(null));
      inflate.on('error', (e) => finish(new ServiceError('bad_request', 'The compressed request body is corrupt', { cause: e })));
    }
    req.on('data', onRaw);
    req.on('end', onRawEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** Any string (or object key) holding a NUL character: PostgreSQL cannot store it. */
export function containsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(containsNul);
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) if (k.includes('\u0000') || containsNul(x)) return true;
  }
  return false;
}

const NUL = () => new ServiceError('bad_request', 'Invalid body: NUL characters are not allowed');

/**
 * The admin API's body parser: JSON everywhere, and text/csv on the one route given `large` limits
 * (the catalog import). Mount it after the bearer-token check.
 */
export function adminBodyParser(opts: {
  small: BodyLimits;
  large: BodyLimits;
  largeRoute: (req: { method: string; path: string }) => boolean;
  /**
   * Read JSON sent as a form, as plain text or without Content-Type (curl -d, a fetch of a string).
   * Only where the caller is authenticated by a header (the admin API's bearer token): a cookie-
   * authenticated API (the dashboard) must not, since a cross-site form can send exactly those types,
   * never application/json (login CSRF).
   */
  lenientTypes?: boolean;
}): RequestHandler {
  return async (req, res, next) => {
    if (!hasBody(req)) return next();
    const large = opts.largeRoute(req);
    const isJson = Boolean(req.is(['application/json', '+json']));
    const isCsv = large && Boolean(req.is('text/csv'));
    // what a hand-written call sends by default (curl -d: a form; fetch with a string: text/plain; none at
    // all): read as JSON if it is JSON, refused as the wrong type if not
    const lenient =
      opts.lenientTypes === true && !isJson && !isCsv && (req.headers['content-type'] === undefined || Boolean(req.is(['application/x-www-form-urlencoded', 'text/plain'])));
    const notJson = () => new ServiceError('unsupported_media_type', large ? 'The request body must be JSON or CSV (Content-Type: application/json or text/csv)' : undefined);
    try {
      // a body of another type is refused, not read as no body (a form post would otherwise be "name required")
      if (!isJson && !isCsv && !lenient) throw notJson();
      // the bytes are read as UTF-8: another declared charset would be read wrong, so it is refused
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(req.headers['content-type'] ?? ''))?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        throw new ServiceError('unsupported_media_type', 'The request body must be UTF-8 (charset=utf-8)');
      }
      continueIfExpected(req, res); // the client may send its body now (it was checked up to here)
      const buf = await readBody(req, large ? opts.large : opts.small);
      if (isJson || lenient) {
        const text = utf8(buf);
        if (text.trim() !== '') {
          try {
            req.body = JSON.parse(text);
          } catch {
            throw isJson ? new ServiceError('bad_request', 'The request body is not valid JSON') : notJson();
          }
          if (containsNul(req.body)) throw NUL();
        }
      } else if (isCsv) {
        const text = utf8(buf);
        if (text.includes('\u0000')) throw NUL();
        req.body = text;
      }
      next();
    } catch (e) {
      // the rest of the body is not read: the connection goes after the answer
      if (!req.complete) res.set('Connection', 'close');
      next(e);
    }
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; bytes that are not UTF-8 are refused, never stored as U+FFFD (RFC 8259 §8.1). */
function utf8(buf: Buffer): string {
  try {
    return strictUtf8.decode(buf);
  } catch {
    throw new ServiceError('bad_request', 'The request body is not valid UTF-8');
  }
}
