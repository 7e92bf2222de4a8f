import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { PARITY_MAX_CODE_DIFF, PARITY_MIN_PSNR_DB } from '../../renderer/backends/parity.ts';
import { writeFixtureCar } from '../support/gltf-car.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GL_REQUIRED = process.env.CI === 'true' || process.env.REQUIRE_GL === '1';

/** `npm run gpu:check` as an operator runs it, each section once at its smallest (--smoke): it must run wherever the tests do. */
describe('gpu:check (ops/gpu-check.ts)', function () {
  this.timeout(180_000);

  it('runs every section on this machine and writes its figures: GL string, auto choice, parity within the contract, bench rows, a baked view', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-check-'));
    const out = path.join(dir, 'figures.json');
    const model = path.join(dir, 'car.glb');
    await writeFixtureCar(model);
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'ops/gpu-check.ts', '--smoke', '--set', 'synthetic', '--model', model, '--json', out], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, ANGLE_DEFAULT_PLATFORM: 'vulkan' },
    });
    expect(r.status, r.stderr + r.stdout).to.equal(0);
    expect(r.stdout).to.contain('gpu-check done');
    const f = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
    const auto = f.auto as unknown as { backend: string; reason: string; choice: string };
    expect(auto.choice).to.equal('auto');
    expect(auto.reason).to.match(/^auto: /);
    const bench = f.bench as unknown as { rows: Record<string, Record<string, { miss: number; encode: number; ratio: number }>>; perSecond: Record<string, number> };
    expect(bench.rows['jpeg 400']!.cpu!.ratio).to.be.greaterThan(0);
    expect(bench.perSecond.cpu).to.be.greaterThan(0);
    if (typeof f.gl !== 'string') {
      if (GL_REQUIRED) throw new Error(`gl required but the check found none: ${JSON.stringify(f.gl)}`);
      return;
    }
    expect(f.gl as string).to.match(/ANGLE/);
    const parity = f.parity as unknown as Record<string, { maxDiff: number; psnr: number | null }>;
    expect(Object.keys(parity)).to.include('studio');
    for (const [name, p] of Object.entries(parity)) {
      expect(p.maxDiff, name).to.be.at.most(PARITY_MAX_CODE_DIFF);
      // JSON writes an identical corpus's Infinity as null
      if (p.psnr !== null) expect(p.psnr, name).to.be.at.least(PARITY_MIN_PSNR_DB);
    }
    expect(bench.rows['jpeg 400']!.gl!.ratio).to.be.greaterThan(0);
    const bake = f.bake as { msPerView?: number; error?: string };
    expect(bake.error, 'the bake').to.equal(undefined);
    expect(bake.msPerView).to.be.greaterThan(0);
  });
});
