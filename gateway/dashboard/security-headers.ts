import type { RequestHandler } from 'express';

/**
 * Every /dashboard answer: a strict Content-Security-Policy (scripts, styles and fonts from this
 * gateway only, no inline script; pictures also from the public base URL, which signs the /images
 * URLs the playground shows), no framing, no sniffing, no Referer.
 */
export function dashboardSecurityHeaders(publicBaseUrl: () => string): RequestHandler {
  return (_req, res, next) => {
    const images = new URL(publicBaseUrl()).origin;
    res.set({
      'Content-Security-Policy': [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        `img-src 'self' data: blob: ${images}`,
        `connect-src 'self' ${images}`,
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; '),
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    next();
  };
}
