/**
 * The committed client/src/schema.d.ts is exactly what openapi-typescript makes of docs/openapi.json
 * today: change the document, run `npm run client:generate`, commit both.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { renderSchema, SCHEMA_FILE } from '../../client/scripts/generate.ts';

describe('typed client: generated schema', function () {
  this.timeout(60_000);

  it('client/src/schema.d.ts matches docs/openapi.json (run `npm run client:generate` when this fails)', async () => {
    const fresh = await renderSchema();
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    if (fresh !== committed) {
      const a = fresh.split('\n');
      const b = committed.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      expect.fail(`client/src/schema.d.ts is stale from line ${line + 1}:\n  generated: ${a[line]}\n  committed: ${b[line]}\nRun \`npm run client:generate\`.`);
    }
  });

  it('the generated types name every path of the document', async () => {
    const doc = JSON.parse(fs.readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, unknown> };
    const text = fs.readFileSync(SCHEMA_FILE, 'utf8');
    for (const p of Object.keys(doc.paths)) expect(text, p).to.contain(`"${p}": {`);
    expect(text).to.contain('getVehicleImages');
    expect(text).to.contain('getUsage');
  });
});
