import fs from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';
import { ServiceError } from '../../shared/errors.ts';

/**
 * The built pages (dashboard/dist): hashed assets cached for a year, index.html (never cached) for
 * the client-side routes, 503 while the pages are not built.
 */
export function dashboardStatic(distDir: string): Router {
  const r = Router();
  const index = path.join(distDir, 'index.html');
  const built = () => fs.existsSync(index);
  r.use((req, _res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!built()) throw new ServiceError('unavailable', 'The dashboard pages are not built on this server');
    next();
  });
  r.use(
    express.static(distDir, {
      index: false,
      redirect: false,
      // the files are small: a Range is answered with the whole file (RFC 9110 allows it), never a 416
      // that would have to leave the closed error catalogue
      acceptRanges: false,
      setHeaders: (res, file) => {
        const hashed = file.startsWith(path.join(distDir, 'assets') + path.sep);
        res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
  );
  // a client-side route (no file extension) gets the app; a missing file is a 404
  r.get(/^\/(?:[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*)?\/?$/, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    // relative to its folder: `send` refuses a path with any dot segment, so an absolute one failed (404)
    // wherever the app itself sits under a dot folder (~/.local/…, a checkout's .tmp/)
    res.sendFile('index.html', { root: distDir, acceptRanges: false });
  });
  return r;
}
