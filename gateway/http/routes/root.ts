import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const OPENAPI_PATH = '/docs/openapi.json';

/** GET /v1 (no key), the OpenAPI document and a readable page for it. */
export function rootRoutes(deps: { version: string }): Router {
  const r = Router();
  r.get('/v1', (_req, res) => {
    res.json({ name: 'vehicle-image-service', version: deps.version, docs: OPENAPI_PATH });
  });
  // files are sent relative to their folder: `send` refuses a path with any dot segment, so an absolute
  // one failed wherever the app sits under a dot folder (~/.local/…, a checkout's .tmp/)
  const docsDir = path.join(ROOT, 'docs');
  r.get(OPENAPI_PATH, (_req, res) => {
    // a Range is answered with the whole file (RFC 9110 allows it), never a 416 outside the error catalogue
    res.type('application/json').sendFile('openapi.json', { root: docsDir, acceptRanges: false });
  });
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // only the two files the docs page loads (not the package's demo index.html, oauth2-redirect, source maps)
  const uiFiles: Record<string, string> = { '/swagger-ui.css': 'text/css', '/swagger-ui-bundle.js': 'text/javascript' };
  r.use('/docs/ui', (req, res, next) => {
    const type = (req.method === 'GET' || req.method === 'HEAD') && Object.hasOwn(uiFiles, req.path) ? uiFiles[req.path] : undefined;
    if (!type) return next(); // the 404 handler answers
    res.type(type).sendFile(req.path.slice(1), { root: swaggerDir, maxAge: '1d', dotfiles: 'deny', acceptRanges: false }, (err) => {
      if (err) next(err);
    });
  });
  const page = fs.readFileSync(path.join(ROOT, 'gateway', 'http', 'docs-page.html'), 'utf8');
  r.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(page);
  });
  return r;
}
