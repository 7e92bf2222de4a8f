/**
 * Generates client/src/schema.d.ts (the types of every path, parameter and answer) from
 * docs/openapi.json with openapi-typescript. `npm run client:generate` writes it; the drift test
 * (test/client/client-drift.test.ts) renders it in memory and compares.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const OPENAPI_FILE = path.join(ROOT, 'docs', 'openapi.json');
export const SCHEMA_FILE = path.join(ROOT, 'client', 'src', 'schema.d.ts');

const BANNER = '// Generated from docs/openapi.json by `npm run client:generate` (openapi-typescript). Do not edit.\n\n';

/** The generated module's text for the document at `file`. */
export async function renderSchema(file = OPENAPI_FILE): Promise<string> {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as OpenAPI3;
  const ast = await openapiTS(doc, { silent: true });
  return BANNER + astToString(ast);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const text = await renderSchema();
  fs.writeFileSync(SCHEMA_FILE, text);
  console.log(`wrote ${path.relative(ROOT, SCHEMA_FILE)} (${text.length} characters)`);
}
