import type { Request } from 'express';
import { ServiceError } from '../../shared/errors.ts';
import { equalSecrets } from './secrets.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const isStateChanging = (req: Request) => !SAFE_METHODS.has(req.method);

/**
 * A browser names the page's origin on every cross-origin and state-changing call: when it does, it
 * must be this gateway (its public base URL, or the Host it was reached at). Sec-Fetch-Site
 * "cross-site" is refused as well.
 */
export function checkSameOrigin(req: Request, publicBaseUrl: string): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw crossOrigin();
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    throw crossOrigin();
  }
  const own = new URL(publicBaseUrl).origin;
  if (given.origin !== own && given.host !== req.headers.host) throw crossOrigin();
}

/** The session's CSRF token must come back in X-CSRF-Token on every state-changing call. */
export function checkCsrfToken(req: Request, expected: string): void {
  const given = req.headers['x-csrf-token'];
  if (typeof given !== 'string' || !equalSecrets(given, expected)) {
    throw new ServiceError('forbidden', 'The X-CSRF-Token header is missing or does not match this session');
  }
}

const crossOrigin = () => new ServiceError('forbidden', 'Cross-origin requests are not allowed here');
