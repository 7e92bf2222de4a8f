/**
 * The embedded database's settings (gateway/db/pglite.ts): it runs with EMBEDDED_SHARED_BUFFERS, set
 * as a start parameter, and leaves the data directory's postgresql.conf as initdb wrote it (PGlite's
 * own option for settings writes that file over with only its lines, at every open).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EMBEDDED_SHARED_BUFFERS, openPglite } from '../../gateway/db/pglite.ts';

describe('embedded database settings', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-pglite-settings-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs with its shared buffers and keeps postgresql.conf as initdb wrote it, across opens', async () => {
    const pg = path.join(dir, 'pg');
    const first = await openPglite(pg);
    const [row] = await first.query<{ shared_buffers: string }>('SHOW shared_buffers');
    expect(row!.shared_buffers).to.equal(EMBEDDED_SHARED_BUFFERS);
    await first.close();
    const conf = fs.readFileSync(path.join(pg, 'postgresql.conf'), 'utf8');
    expect(conf).to.not.match(/^shared_buffers\s*=\s*32MB\s*$/m);
    expect(conf.split('\n').length, 'initdb writes a whole postgresql.conf').to.be.greaterThan(50);

    const again = await openPglite(pg);
    const [row2] = await again.query<{ shared_buffers: string }>('SHOW shared_buffers');
    expect(row2!.shared_buffers).to.equal(EMBEDDED_SHARED_BUFFERS);
    await again.close();
    expect(fs.readFileSync(path.join(pg, 'postgresql.conf'), 'utf8')).to.equal(conf);
  });
});
