import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { KeyedSecret } from '../../shared/config-fields.ts';
import { ServiceError } from '../../shared/errors.ts';
import { DEFAULT_ASPECT, DEFAULT_FRAMING_OPTIONS, MARGIN_MAX, isAspect, type FramingOptions } from '../../shared/framing.ts';
import { FORMATS, type Background, type ImageFormat } from '../../shared/render-options.ts';
import { isShotId, type ShotId } from '../../shared/shot-id.ts';
import { isViewId, type ViewId } from '../../shared/views.ts';

export const TOKEN_ISSUER = 'vehicle-image-gateway';
export const TOKEN_AUDIENCE = 'vehicle-image-download';

/** The canonical render request a signed image URL carries. Short claim names keep URLs short. */
export interface ImageClaims {
  set: string; // asset set id
  revision: string; // the set's revision: a re-baked set gets new URLs and ETags
  /** What is drawn: a view of the set, or a spin frame (`yaw-000` …). */
  view: ShotId;
  color: string; // '#RRGGBB'
  shadow: boolean;
  plate: string | null;
  format: ImageFormat;
  width: number;
  background: Background;
  /** framing, margin (fit only), aspect; absent claims are studio at 16:9 */
  frame: FramingOptions;
  vehicle: string; // vehicle id: the download re-checks that it is still published
  /**
   * The catalog's view id (the grant); `view` is the asset set's view it is drawn from. A spin frame is
   * its own (no catalog view stands for it: the grant is the contract's spin feature).
   */
  catalogView: ShotId;
  /** The grant: the organisation and the key that asked for the URL (ids only, no secret). */
  org: string;
  key: string;
}

export interface SignedImage {
  token: string;
  expiresAt: Date;
}

export interface ImageSigner {
  sign(claims: ImageClaims, nowMs?: number): SignedImage;
  verify(token: string): ImageClaims & { exp: number };
}

/**
 * HS256 JWTs. `exp` is aligned to a bucket (a tenth of the lifetime) so that identical requests
 * made within a bucket get an identical URL, which is what lets browsers and CDNs cache it.
 */
export function createImageSigner(opts: { keys: KeyedSecret[]; ttlSeconds: number }): ImageSigner {
  if (opts.keys.length === 0) throw new Error('no image signing key');
  for (const k of opts.keys) {
    if (k.secret.length < 32) throw new Error(`image signing key ${k.id} is shorter than 32 bytes`);
  }
  const signing = opts.keys[0]!;
  // KeyObjects made once: given bytes, jsonwebtoken tries (and fails) to parse them as a PEM key on
  // every sign and verify before it makes a secret key of them, which costs more than the HMAC.
  const signingKey = crypto.createSecretKey(signing.secret);
  const byKid = new Map(opts.keys.map((k) => [k.id, crypto.createSecretKey(k.secret)]));
  const bucket = Math.max(1, Math.floor(opts.ttlSeconds / 10));

  return {
    sign(claims, nowMs = Date.now()) {
      const now = Math.floor(nowMs / 1000);
      // Expire between ttl and ttl + bucket from now, on a bucket boundary.
      const exp = (Math.floor((now + opts.ttlSeconds) / bucket) + 1) * bucket;
      const payload = {
        s: claims.set,
        r: claims.revision,
        v: claims.view,
        c: claims.color.slice(1),
        sh: claims.shadow ? 1 : 0,
        ...(claims.plate !== null ? { p: claims.plate } : {}),
        f: claims.format,
        w: claims.width,
        // absent for the studio backdrop, so URLs issued before transparency existed stay valid and equal
        ...(claims.background === 'transparent' ? { bg: 't' } : {}),
        // likewise absent for the default framing (studio, 16:9)
        ...(claims.frame.framing === 'fit' ? { fr: 'fit', m: claims.frame.margin } : {}),
        ...(claims.frame.aspect !== DEFAULT_ASPECT ? { a: claims.frame.aspect } : {}),
        veh: claims.vehicle,
        ...(claims.catalogView !== claims.view ? { cv: claims.catalogView } : {}),
        o: claims.org,
        k: claims.key,
        exp,
      };
      const token = jwt.sign(payload, signingKey, {
        algorithm: 'HS256',
        keyid: signing.id,
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        noTimestamp: true,
      });
      return { token, expiresAt: new Date(exp * 1000) };
    },

    verify(token) {
      let decoded: jwt.Jwt | null;
      try {
        decoded = jwt.decode(token, { complete: true }); // throws on a segment that is not JSON
      } catch {
        decoded = null;
      }
      if (!decoded || typeof decoded.payload === 'string') {
        throw new ServiceError('bad_request', 'The image token is malformed');
      }
      const kid = decoded.header.kid;
      // every token this service signs is HS256 with a kid: one without is not ours, whatever its kid
      if (decoded.header.alg !== 'HS256' || !kid) throw new ServiceError('unauthorized', 'The image token is invalid');
      const secret = byKid.get(kid);
      if (!secret) throw new ServiceError('unauthorized', 'The image token was signed with an unknown key');
      let p: jwt.JwtPayload;
      try {
        p = jwt.verify(token, secret, {
          algorithms: ['HS256'],
          issuer: TOKEN_ISSUER,
          audience: TOKEN_AUDIENCE,
        }) as jwt.JwtPayload;
      } catch (err) {
        if (err instanceof jwt.TokenExpiredError) {
          throw new ServiceError('unauthorized', 'The image URL has expired; request a new one');
        }
        throw new ServiceError('unauthorized', 'The image token is invalid');
      }
      const claims = toClaims(p);
      if (!claims) throw new ServiceError('unauthorized', 'The image token is invalid');
      return claims;
    },
  };
}

function toClaims(p: jwt.JwtPayload): (ImageClaims & { exp: number }) | null {
  const { s, r, v, c, sh, f, w, veh, exp, o, k, cv } = p as Record<string, unknown>;
  // URLs without a grant (issued before grants existed) no longer verify
  if (typeof o !== 'string' || typeof k !== 'string' || o === '' || k === '') return null;
  if (cv !== undefined && (typeof cv !== 'string' || !isViewId(cv))) return null;
  if (typeof s !== 'string' || typeof r !== 'string' || typeof v !== 'string' || !isShotId(v)) return null;
  if (typeof c !== 'string' || !/^[0-9A-F]{6}$/.test(c)) return null;
  if (typeof f !== 'string' || !(FORMATS as readonly string[]).includes(f)) return null;
  if (typeof w !== 'number' || !Number.isInteger(w)) return null;
  if (typeof veh !== 'string' || typeof exp !== 'number') return null;
  const plate = (p as Record<string, unknown>).p;
  if (plate !== undefined && typeof plate !== 'string') return null;
  const bg = (p as Record<string, unknown>).bg;
  if (bg !== undefined && bg !== 't') return null;
  const { fr, m, a } = p as Record<string, unknown>;
  if (fr !== undefined && fr !== 'fit') return null;
  if (fr === 'fit' && (typeof m !== 'number' || !Number.isInteger(m) || m < 0 || m > MARGIN_MAX)) return null;
  if (fr === undefined && m !== undefined) return null;
  if (a !== undefined && (typeof a !== 'string' || !isAspect(a) || a === DEFAULT_ASPECT)) return null;
  const frame: FramingOptions = {
    framing: fr === 'fit' ? 'fit' : 'studio',
    margin: fr === 'fit' ? (m as number) : DEFAULT_FRAMING_OPTIONS.margin,
    aspect: (a as FramingOptions['aspect'] | undefined) ?? DEFAULT_ASPECT,
  };
  return {
    set: s,
    revision: r,
    view: v,
    color: `#${c}`,
    shadow: sh === 1,
    plate: plate ?? null,
    format: f as ImageFormat,
    width: w,
    background: bg === 't' ? 'transparent' : 'studio',
    frame,
    vehicle: veh,
    catalogView: (cv as ViewId | undefined) ?? (v as ShotId),
    org: o,
    key: k,
    exp,
  };
}
