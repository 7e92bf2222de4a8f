import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const OPENAPI_PATH = '/docs/openapi.json';

/** GET /v1 (no key), the OpenAPI document and a readable page for it. */
export function rootRoutes(deps: { version: string }): Router {
  const r = Router();
  r.get('/v1', (_req, res) => {
    res.json({ name: 'vehicle-image-service', version: deps.version, docs: OPENAPI_PATH });
  });
  const openapiFile = path.join(ROOT, 'docs', 'openapi.json');
  r.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').sendFile(openapiFile);
  });
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  r.use('/docs/ui', express.static(swaggerDir, { index: false, maxAge: '1d' }));
  const page = fs.readFileSync(path.join(ROOT, 'gateway', 'http', 'docs-page.html'), 'utf8');
  r.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(page);
  });
  return r;
}
