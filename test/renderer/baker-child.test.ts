/**
 * The frame-baker child's start (renderer/spin/baker-child.ts) without GL: a child that never says ready
 * (a GL driver hanging in its start) is killed after the bake timeout and the job fails with a
 * `child` BakeFailure, instead of holding the bake queue's one slot for good.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BakeFailure, FrameBakerChild } from '../../renderer/spin/baker-child.ts';
import { createLogger } from '../../shared/logger.ts';

describe('frame-baker child: a start that never ends', function () {
  this.timeout(30_000);
  let dir = '';
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'baker-child-'));
    // stays alive, says nothing
    await fs.writeFile(path.join(dir, 'silent.mjs'), 'setInterval(() => {}, 1000);\n');
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('is killed after the timeout and the job fails as the child\'s', async () => {
    const child = new FrameBakerChild({ logger: createLogger('baker-child-test', 'silent'), entry: path.join(dir, 'silent.mjs'), timeoutMs: 1500 });
    const job = { id: 1, setDir: dir, setId: 'x', revision: 'r', yaw: 0, width: 400, height: 225, framesRoot: dir, supersample: 1 };
    const t0 = Date.now();
    await assert.rejects(child.bake(job), (e: unknown) => e instanceof BakeFailure && e.kind === 'child');
    assert.ok(Date.now() - t0 < 15_000);
    assert.equal(child.pid, undefined, 'no child left');
    await child.close();
  });
});
