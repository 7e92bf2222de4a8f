import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/ports.ts';
import { waitForOutput } from '../support/child-output.ts';
import { seedEmbeddedDatabase } from './support/gateway-fixture.ts';

/**
 * pino's stdout destination (shared/logger.ts) writes asynchronously: a line leaves the event loop
 * through the thread pool, and lines logged while a write is under way wait for the next one. A
 * shutdown must not lose them: SIGTERM right after a burst of calls leaves every call's access-log
 * line, and the last line ("stopped"), on stdout when the process has exited.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('gateway process: the request log reaches stdout before the process exits', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('SIGTERM right after a burst of calls: every call\'s line, then "stopped", are on stdout', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-logflush-'));
    dirs.push(dataDir);
    await seedEmbeddedDatabase(dataDir);
    // No local renderer (an address nothing listens on: the catalog calls never render), no metrics port.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      RENDERER_ADDR: `127.0.0.1:${await freePort()}`,
      METRICS_PORT: 'off',
      SEED_DEMO: 'true',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '8000',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'gateway', 'main.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

    const [, port] = await waitForOutput(child, /up at http:\/\/localhost:(\d+)/, 120_000, ['stdout']);
    const key = /Demo API key \(shown only now\): (\S+)/.exec(stdout)?.[1];
    expect(key, 'demo key printed').to.be.a('string');
    const base = `http://127.0.0.1:${port}`;

    // 400 calls, 20 at a time (about 100 KB of log lines; under the demo contract's 600 a minute), the last ones answered just before SIGTERM
    const ids = Array.from({ length: 400 }, (_, i) => `burst-${i}`);
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          const r = await fetch(`${base}/v1/colors`, { headers: { 'x-api-key': key!, 'x-request-id': id } });
          await r.arrayBuffer();
          statuses.push(r.status);
        }
      }),
    );
    child.kill('SIGTERM'); // at once: the last lines may still be on their way to stdout
    const { code, signal } = await exited;
    expect({ code, signal }, stderr.slice(-2000)).to.deep.equal({ code: 0, signal: null });
    expect(statuses.filter((s) => s !== 200)).to.deep.equal([]);

    const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string; req?: { id?: string }; org?: string });
    const logged = new Set(lines.filter((l) => l.msg === 'request completed').map((l) => l.req?.id));
    expect(ids.filter((id) => !logged.has(id)), 'calls without their access-log line').to.deep.equal([]);
    const last = lines.filter((l) => l.msg === 'request completed' && l.req?.id === ids.at(-1))[0]!;
    expect(last.org, 'the gate\'s bindings are on the line').to.be.a('string');
    expect(lines.at(-1)?.msg).to.equal('stopped');
    expect(stdout.endsWith('\n'), 'no line cut short').to.equal(true);
  });
});
