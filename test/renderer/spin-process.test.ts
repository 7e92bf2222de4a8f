/**
 * The frame-baker child goes with its renderer however the renderer goes: a renderer process (from
 * source under tsx, as `npm run renderer` and the embedded gateway run it) killed with SIGKILL while a
 * spin frame bakes leaves no frame baker behind (the child ends when its IPC channel closes).
 * SIGTERM's drain, on the compiled renderer, is in test/gateway/process-signals.test.ts.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import { waitForOutput } from '../support/child-output.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/ports.ts';
import { descendants, running } from '../support/process-tree.ts';
import { startRendererProcess } from '../support/renderer-process.ts';
import { makeSpinSet } from '../support/spin-set.ts';

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

describe('spin frame baker process (renderer killed)', function () {
  this.timeout(300_000);
  let tmp: string;
  let renderer: ChildProcess | null = null;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'spin-process-'));
  });
  after(async () => {
    renderer?.kill('SIGKILL');
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('SIGKILL to the renderer during a bake: the frame-baker child does not outlive it', async () => {
    const assets = path.join(tmp, 'assets');
    await fs.mkdir(assets);
    const setId = path.basename(await makeSpinSet(assets));
    const port = await freePort();
    renderer = await startRendererProcess(port, { ASSETS_DIR: assets, SPIN_FRAMES_DIR: path.join(tmp, 'frames'), RENDER_WARMUP: 'false' });
    const client = createRendererClient({ addresses: `127.0.0.1:${port}` });
    // 1600 px at 16 samples a pixel: seconds of lavapipe
    const inflight = client
      .render({ assetSet: setId, view: 'yaw-270', color: '#2E8B57', shadow: true, plate: null, format: 'png', width: 1600, background: 'studio' }, { deadlineMs: 120_000 })
      .catch(() => null);
    await waitForOutput(renderer, /spin frame baker started/, 90_000, ['stdout']);
    // under tsx each process may have an esbuild service of its own: every one must go
    const left = descendants(renderer.pid!);
    const baker = left.filter((pid) => readCmdline(pid).includes('frame-baker-process'));
    expect(baker, 'the frame-baker child').to.have.length(1);
    renderer.kill('SIGKILL');
    await eventually(async () => {
      expect(left.filter(running), 'processes the renderer started, still running').to.deep.equal([]);
    }, 120_000, 100);
    client.close();
    await inflight;
  });
});
