/**
 * The studio CLI's set commands (docs/studio.md): `import <dir>` of a format-2 set, and `split <in>
 * --out <dir>` and `import <dir>` of a photographed folder (base + paint (+ shadow, coverage) per
 * view but no diffuse/specular). None of them talks to a gateway.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';

const run = promisify(execFile);

describe('studio CLI: import and split of asset sets', function () {
  this.timeout(120_000);
  let tmp: string;
  let assetsDir: string;
  let input: string;
  let sysTmp: string;
  const cli = async (args: string[]) => {
    try {
      const r = await run(process.execPath, ['--import', 'tsx', 'studio/main.ts', ...args], {
        env: { ...process.env, ASSETS_DIR: assetsDir, TMPDIR: sysTmp },
      });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  };
  /** The last line the CLI wrote on stderr (the error line). */
  const lastErr = (err: string) => err.trim().split('\n').filter((l) => !l.startsWith('npm warn')).pop() ?? '';

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-photo-cli-'));
    assetsDir = path.join(tmp, 'assets');
    fs.mkdirSync(assetsDir);
    sysTmp = path.join(tmp, 'os-tmp'); // the CLI's temporary split goes here
    fs.mkdirSync(sysTmp);
    // a photographed folder: the synthetic set's base, paint, shadow and coverage of two views
    input = path.join(tmp, 'shoot', 'studio-photo');
    const meta = JSON.parse(fs.readFileSync('assets/synthetic/set.json', 'utf8'));
    const views: Record<string, unknown> = {};
    for (const v of ['side_right', 'front']) {
      fs.mkdirSync(path.join(input, v), { recursive: true });
      for (const l of ['base', 'paint', 'shadow', 'coverage']) {
        const f = path.join('assets/synthetic', v, `${l}.png`);
        if (fs.existsSync(f)) fs.copyFileSync(f, path.join(input, v, `${l}.png`));
      }
      const m = meta.views[v];
      views[v] = { width: m.width, height: m.height, plate_quad: m.plate_quad, shadow: m.shadow };
    }
    fs.writeFileSync(
      path.join(input, 'set.json'),
      JSON.stringify({ id: 'studio-photo', revision: 'shoot-1', neutral_paint: meta.neutral_paint, views }, null, 2),
    );
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('import validates a set and copies it; a broken set is refused naming the file', async () => {
    const src = path.join(tmp, 'src', 'studio-one');
    fs.cpSync('assets/synthetic', src, { recursive: true });
    const meta = JSON.parse(fs.readFileSync(path.join(src, 'set.json'), 'utf8'));
    fs.writeFileSync(path.join(src, 'set.json'), JSON.stringify({ ...meta, id: 'studio-one' }));
    const ok = await cli(['import', src]);
    expect(ok.code, ok.err).to.equal(0);
    expect(fs.existsSync(path.join(assetsDir, 'studio-one', 'set.json'))).to.equal(true);
    fs.rmSync(path.join(src, 'rear', 'paint.png'));
    const bad = await cli(['import', src, '--replace']);
    expect(bad.code).to.not.equal(0);
    expect(bad.err).to.contain(path.join('rear', 'paint.png'));
  });

  it('split writes a format-2 set the loader accepts; it will not overwrite without --force', async () => {
    const out = path.join(tmp, 'split', 'studio-photo');
    const r = await cli(['split', input, '--out', out]);
    expect(r.code, r.err).to.equal(0);
    const report = JSON.parse(r.out);
    expect(report).to.include({ id: 'studio-photo', revision: 'shoot-1-split1-cal2', neutral_estimated: false });
    const json = JSON.parse(fs.readFileSync(path.join(out, 'set.json'), 'utf8'));
    expect(json.format).to.equal(2);
    expect(json.source.kind).to.equal('photographed');
    expect(json.views.side_right).to.include({ shadow: true, coverage: true });
    expect(json.views.front.plate_quad).to.have.length(4);
    const meta = await readSetMeta(out);
    expect(Object.keys(meta.views).sort()).to.deep.equal(['front', 'side_right']);
    for (const f of ['base', 'paint', 'diffuse', 'specular', 'shadow', 'coverage']) {
      expect(fs.existsSync(path.join(out, 'side_right', `${f}.png`)), f).to.equal(true);
    }
    const again = await cli(['split', input, '--out', out]);
    expect(again.code).to.not.equal(0);
    expect(lastErr(again.err)).to.match(/already exists \(use --force/);
    const forced = await cli(['split', input, '--out', out, '--force', '--radius', '10']);
    expect(forced.code, forced.err).to.equal(0);
  });

  it('import takes a photographed folder directly: splits it, then imports as usual', async () => {
    const r = await cli(['import', input]);
    expect(r.code, r.err).to.equal(0);
    expect(r.err).to.contain('a photographed set');
    expect(JSON.parse(r.out)).to.include({ imported: 'studio-photo', revision: 'shoot-1-split1-cal2' });
    const target = path.join(assetsDir, 'studio-photo');
    expect(fs.existsSync(path.join(target, 'front', 'diffuse.png'))).to.equal(true);
    expect((await readSetMeta(target)).views.front!.calibration.diffuseGain).to.be.greaterThan(0);
    expect(fs.readdirSync(sysTmp).filter((f) => f.startsWith('vis-split-')), 'temporary split left behind').to.deep.equal([]);
  });

  it('errors are one line naming the file and the problem', async () => {
    const bad = path.join(tmp, 'bad', 'studio-photo');
    fs.cpSync(input, bad, { recursive: true });
    fs.rmSync(path.join(bad, 'front', 'paint.png'));
    const missing = await cli(['import', bad]);
    expect(missing.code).to.not.equal(0);
    expect(lastErr(missing.err)).to.equal(`error: ${path.join(bad, 'front', 'paint.png')}: missing`);

    fs.copyFileSync(path.join(input, 'front', 'paint.png'), path.join(bad, 'front', 'paint.png'));
    fs.writeFileSync(path.join(bad, 'side_right', 'base.png'), 'not a png');
    const unreadable = await cli(['split', bad, '--out', path.join(tmp, 'bad-out', 'studio-photo')]);
    expect(unreadable.code).to.not.equal(0);
    expect(lastErr(unreadable.err)).to.match(new RegExp(`^error: ${path.join(bad, 'side_right', 'base.png').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a readable image`));

    const wrongName = await cli(['split', input, '--out', path.join(tmp, 'bad-out', 'other')]);
    expect(wrongName.code).to.not.equal(0);
    expect(lastErr(wrongName.err)).to.contain(`the output folder's name must be the set id "studio-photo"`);
    expect(fs.readdirSync(sysTmp).filter((f) => f.startsWith('vis-split-')), 'temporary split left behind').to.deep.equal([]);
    expect(fs.existsSync(path.join(tmp, 'bad-out', 'studio-photo'))).to.equal(false);
  });
});
