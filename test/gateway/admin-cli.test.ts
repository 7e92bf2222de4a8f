import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

const run = promisify(execFile);

describe(`admin CLI (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let scratch: string;
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    try {
      const r = await run(process.execPath, ['--import', 'tsx', 'gateway/cli/admin.ts', ...args], {
        env: { ...process.env, ADMIN_URL: gw.url, ADMIN_TOKEN: gw.adminToken, ...env },
      });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  };
  before(async () => {
    gw = await startTestGateway();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-admin-cli-'));
  });
  after(async () => {
    await gw?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('quickstart creates an organisation, a contract and a working key', async () => {
    const r = await cli(['quickstart', 'CLI org', '--rpm', '30', '--quota', '500']);
    expect(r.code).to.equal(0);
    const out = JSON.parse(r.out);
    const me = await gw.getWithKey(out.key, '/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.contract).to.include({ rpm_limit: 30, monthly_quota: 500 });
  });

  it('catalog import applies the sample file (JSON and CSV), and a bad file is refused with the field named', async () => {
    const json = await cli(['catalog', 'import', 'docs/sample-catalog.json']);
    expect(json.code, json.err).to.equal(0);
    expect(JSON.parse(json.out).imported.vehicles).to.be.greaterThan(0);
    const csv = await cli(['catalog', 'import', 'docs/sample-catalog.csv']);
    expect(csv.code, csv.err).to.equal(0);
    const bad = path.join(scratch, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ format: 'vehicle-catalog/v1', categories: [], makes: [{ slug: 'x', name: 'X', models: [{ slug: 'y', name: 'Y', years: [{ year: 1700, variants: [] }] }] }] }));
    const r = await cli(['catalog', 'import', bad]);
    expect(r.code).to.not.equal(0);
    expect(r.err).to.match(/makes\[0\]\.models\[0\]\.years\[0\]\.year/);
  });

  it('catalog export writes the import format', async () => {
    const out = path.join(scratch, 'export.json');
    const r = await cli(['catalog', 'export', '--out', out]);
    expect(r.code).to.equal(0);
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).format).to.equal('vehicle-catalog/v1');
  });

  it('a wrong admin token is reported, not crashed on', async () => {
    const r = await cli(['categories'], { ADMIN_TOKEN: 'wrong-token-wrong-token' });
    expect(r.code).to.not.equal(0);
    expect(r.err).to.contain('401');
  });
});
