import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { REAL_REDIS_URL, createScratchDatabase } from './support/backend.ts';
import { seedEmbeddedDatabase } from './support/gateway-fixture.ts';
import { WebhookReceiver } from './support/webhook-receiver.ts';
import { freePort } from '../support/ports.ts';
import { waitForOutput } from '../support/child-output.ts';

/**
 * Nothing lost: the gateway process is killed (SIGKILL, no shutdown code runs) while an event it
 * wrote is not yet delivered (its receiver holds the first attempt unanswered). Started again over
 * the same store, the gateway delivers it, with the same webhook-id.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN_TOKEN = 'events-process-admin-token';

describe('gateway process: an event survives SIGKILL before its delivery', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let receiver: WebhookReceiver | null = null;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> = null;
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await receiver?.close();
    await scratch?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function start(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; base: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'gateway', 'main.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const [, port] = await waitForOutput(child, /up at http:\/\/localhost:(\d+)/, 120_000, ['stdout']);
    return { child, base: `http://127.0.0.1:${port}` };
  }

  async function admin(base: string, method: string, p: string, body?: unknown) {
    const r = await fetch(`${base}/admin/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await r.json()) as Record<string, unknown>;
    expect(r.status, JSON.stringify(json)).to.be.within(200, 201);
    return json;
  }

  it('SIGKILL with the delivery unanswered: after a restart the event is delivered, same webhook-id, verified', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-events-kill-'));
    dirs.push(dataDir);
    scratch = await createScratchDatabase();
    if (!scratch) await seedEmbeddedDatabase(dataDir);
    receiver = (await WebhookReceiver.start()).answer('stall');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // no local renderer: nothing here renders
      RENDERER_ADDR: `127.0.0.1:${await freePort()}`,
      METRICS_PORT: 'off',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // an attempt's lease is twice this: the restarted gateway takes the delivery over soon after
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE_MS: '100',
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
      ...(REAL_REDIS_URL ? { REDIS_URL: REAL_REDIS_URL } : {}),
    };

    const first = await start(env);
    const org = await admin(first.base, 'POST', '/organizations', { name: 'Killed' });
    const hook = await admin(first.base, 'POST', `/organizations/${String(org.id)}/webhooks`, { url: receiver.url });
    const key = await admin(first.base, 'POST', `/organizations/${String(org.id)}/keys`, { name: 'before the kill' });
    await receiver.waitFor(1); // the event is written and its first attempt is held unanswered
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    const firstId = receiver.received[0]!.headers['webhook-id'];

    await start(env);
    await receiver.waitFor(2, 30_000);
    const got = receiver.received[1]!;
    expect(got.headers['webhook-id']).to.equal(firstId);
    const event = new Webhook(String(hook.secret)).verify(got.body, got.headers) as { type: string; data: unknown; organization_id: string };
    expect(event.type).to.equal('key.created');
    expect(event.organization_id).to.equal(org.id);
    expect(event.data).to.deep.equal({ key_id: key.id, name: 'before the kill' });
  });
});
