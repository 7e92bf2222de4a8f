import fs from 'node:fs';
import { expect } from 'chai';
import { createFileAssetSetDirectory } from '../../gateway/catalog/asset-sets.ts';
import { parseCatalogJson } from '../../gateway/catalog/catalog-file.ts';
import { importCatalog } from '../../gateway/catalog/import.ts';
import { openDatabase } from '../../gateway/db/open.ts';
import { PHASE_LINE_MIN_MS, startPhases, type Phase } from '../../gateway/start-phase.ts';
import { captureLog } from '../support/log-capture.ts';
import { TEST_CATALOG } from './support/gateway-fixture.ts';

/** A phase that records the steps it is given, in order, and runs them. */
function recorder(): { phase: Phase; steps: string[] } {
  const steps: string[] = [];
  return { steps, phase: (message, run) => (steps.push(message), run()) };
}

describe('start: one line per long phase, with its duration', () => {
  it('a phase that takes the threshold or more logs its message with ms; a shorter one logs nothing; the result passes through', async () => {
    expect(PHASE_LINE_MIN_MS).to.equal(1000);
    const log = captureLog();
    const phase = startPhases(log.logger('gateway', 'info'), 40);
    expect(await phase('quick', async () => 'a')).to.equal('a');
    expect(await phase('slow', () => new Promise((r) => setTimeout(() => r('b'), 60)))).to.equal('b');
    const entries = log.entries(30);
    expect(entries.map((e) => e.msg)).to.deep.equal(['slow']);
    expect(entries[0]!.ms).to.be.a('number').and.to.be.at.least(40);
  });

  it('a failing phase logs nothing and its error reaches the start', async () => {
    const log = captureLog();
    const phase = startPhases(log.logger('gateway', 'info'), 0);
    let caught: unknown = null;
    await phase('fails', () => Promise.reject(new Error('boom'))).catch((err: unknown) => (caught = err));
    expect((caught as Error).message).to.equal('boom');
    expect(log.lines).to.deep.equal([]);
  });

  it('the embedded database is created and migrated as two phases, then the catalog\'s search index is one', async () => {
    const { phase, steps } = recorder();
    const db = await openDatabase({ databaseUrl: null, dataDir: null, phase });
    try {
      expect(steps).to.deep.equal(['created the embedded database (PGlite)', 'migrated the embedded database']);
      await importCatalog(db, createFileAssetSetDirectory('assets'), parseCatalogJson(fs.readFileSync(TEST_CATALOG, 'utf8')), { phase });
      expect(steps.slice(2)).to.deep.equal(['built the search index']);
    } finally {
      await db.close();
    }
  });
});
