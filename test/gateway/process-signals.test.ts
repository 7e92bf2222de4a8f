import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../gateway/db/open.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import { REAL_DATABASE_URL, createScratchDatabase } from './support/backend.ts';
import { freePort } from '../support/ports.ts';
import { exited, waitForOutput } from '../support/child-output.ts';
import { descendants, running } from '../support/process-tree.ts';
import { seedEmbeddedDatabase } from './support/gateway-fixture.ts';

/**
 * The processes a container runs: `npm run build` output started with plain node (what the images'
 * CMD runs under tini), and `npm start` for newcomers. SIGTERM to the very process a container
 * signals must drain and exit 0; SIGTERM to npm must stop node too.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// METRICS_PORT 0, read back from the log: a port picked free beforehand could be taken by the local
// renderer's own port 0 before the gateway bound it (EADDRINUSE on a CI run)
const baseEnv = (dataDir: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  METRICS_PORT: '0',
  METRICS_HOST: '127.0.0.1',
  RENDER_BACKEND: 'cpu',
  RENDER_WORKERS: '1',
  RENDER_CACHE_MB: '64',
  SEED_DEMO: 'true',
  USAGE_FLUSH_MS: '600000', // only the final flush on shutdown writes the counts
  SHUTDOWN_GRACE_MS: '8000',
  LOG_LEVEL: 'info',
});

describe('processes: SIGTERM drains and exits 0', function () {
  this.timeout(240_000);
  const dist = path.join(ROOT, '.tmp', `dist-signals-${process.pid}`);
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const trees: number[] = [];

  before(function () {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'deploy', 'build.mjs'), '--out', dist, '--link-assets'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
    expect(fs.existsSync(path.join(dist, 'gateway', 'main.js'))).to.equal(true);
    expect(fs.existsSync(path.join(dist, 'renderer', 'backends', 'cpu', 'worker.js'))).to.equal(true);
    expect(fs.existsSync(path.join(dist, 'dashboard', 'dist', 'index.html')), 'the dashboard is part of the build').to.equal(true);
  });
  after(() => {
    // whatever a failed case left behind (only the processes these tests started)
    for (const c of children) if (c.pid) trees.push(...descendants(c.pid), c.pid);
    for (const p of trees) if (running(p)) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
    fs.rmSync(dist, { recursive: true, force: true });
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('node dist/gateway/main.js (the container CMD): finishes a request in flight, flushes usage, stops the local renderer, exits 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-sig-'));
    dirs.push(dataDir);
    // the database a first start would make, so the child opens it rather than running initdb (not the subject here)
    await seedEmbeddedDatabase(dataDir);
    const child = spawn(process.execPath, [path.join(dist, 'gateway', 'main.js')], { cwd: dist, env: baseEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    // the metrics listener starts after the "up at" line, so both are in the output once it is logged
    await waitForOutput(child, /gateway metrics listening/, 90_000);
    const port = /up at http:\/\/localhost:(\d+)/.exec(output)?.[1];
    const metricsPort = /"port":(\d+),"host":"127\.0\.0\.1","msg":"gateway metrics listening/.exec(output)?.[1];
    expect([port, metricsPort], 'ports logged').to.satisfy((a: unknown[]) => a.every((p) => typeof p === 'string'));
    const key = /Demo API key \(shown only now\): (\S+)/.exec(output)?.[1];
    expect(key, 'demo key printed').to.be.a('string');
    // the compiled gateway (the image has no npm) names its compiled admin CLI, as it can be typed from its folder
    expect(output).to.contain('node gateway/cli/admin.js members sign-in-link');
    expect(output).to.not.contain('npm run admin');
    const adminToken = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')).adminToken as string;
    const base = `http://127.0.0.1:${port}`;

    // the compiled gateway serves the customers' dashboard (the build once left it out: a 503)
    const page = await fetch(`${base}/dashboard/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.match(/<div id="app"|<script type="module"/);
    // and its files from a folder under a dot folder (.tmp/ here, ~/.local/… elsewhere): send() refused
    // absolute paths with a dot segment, 404 for index.html and the OpenAPI document, 403 for Swagger UI's
    for (const p of ['/dashboard/keys', '/docs/openapi.json', '/docs/ui/swagger-ui.css']) expect((await fetch(`${base}${p}`)).status, p).to.equal(200);

    // counted calls, written through only by the final flush
    for (let i = 0; i < 7; i++) expect((await fetch(`${base}/v1/colors`, { headers: { 'x-api-key': key! } })).status).to.equal(200);
    // metrics on the internal port, not the public one
    expect((await fetch(`${base}/metrics`)).status).to.equal(404);
    const metricsText = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metricsText).to.contain('http_request_duration_seconds_count{method="GET",route="/v1/colors",status="200"} 7');

    // the images' HEALTHCHECK command
    const hc = spawnSync(process.execPath, [path.join(dist, 'deploy', 'healthcheck.js'), 'gateway'], { env: { PORT: port! }, encoding: 'utf8' });
    expect(hc.status, hc.stderr).to.equal(0);

    const renderers = descendants(child.pid!);
    expect(renderers.length, 'the local renderer runs as a child').to.be.greaterThan(0);

    // a request in flight: headers and half the body sent, the rest after SIGTERM. Each step waits for
    // the gateway, not for a clock (fixed sleeps raced on a loaded machine): "100 Continue" says the
    // server has parsed the headers and holds the request, and the "shutting down" line that it has
    // begun to drain before the body ends.
    const body = JSON.stringify({ name: 'Created during the drain' });
    const inflight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${base}/admin/v1/organizations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${adminToken}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
        agent: false,
      });
      req.on('response', (res) => {
        let t = '';
        res.on('data', (d) => (t += d));
        res.on('end', () => resolve({ status: res.statusCode!, text: t }));
      });
      req.on('error', reject);
      req.once('continue', () => {
        req.write(body.slice(0, 10));
        const draining = waitForOutput(child, /"msg":"shutting down"/, 60_000);
        child.kill('SIGTERM');
        draining.then(() => req.end(body.slice(10)), reject);
      });
      req.flushHeaders();
    });
    const answer = await inflight;
    expect(answer.status, answer.text).to.equal(201);

    // a hang is caught by exited()'s own limit; how fast it exits is for benchmarks, not this test
    const { code, signal } = await exited(child, 30_000);
    expect({ code, signal }, output.slice(-2000)).to.deep.equal({ code: 0, signal: null });
    expect(output).to.contain('"msg":"stopped"');
    for (const p of renderers) expect(running(p), `renderer pid ${p} stopped`).to.equal(false);

    // the final flush wrote the month's counts
    const db = await openDatabase({ databaseUrl: null, dataDir });
    try {
      const rows = await db.query<{ requests: number }>('SELECT requests FROM monthly_usage');
      expect(rows.reduce((s, r) => s + Number(r.requests), 0)).to.equal(7);
      const orgs = await db.query<{ name: string }>("SELECT name FROM organizations WHERE name = 'Created during the drain'");
      expect(orgs).to.have.length(1);
    } finally {
      await db.close();
    }
  });

  it('node dist/renderer/main.js (the renderer container CMD): metrics on its own port, SIGTERM finishes a render in flight and exits 0', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [path.join(dist, 'renderer', 'main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, RENDERER_PORT: String(port), RENDERER_HOST: '127.0.0.1', RENDERER_METRICS_PORT: String(metricsPort), RENDERER_METRICS_HOST: '127.0.0.1', RENDER_BACKEND: 'cpu', RENDER_WORKERS: '1', RENDER_CACHE_MB: '64', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    await waitForOutput(child, /renderer metrics listening/, 90_000);
    const client = createRendererClient({ addresses: `127.0.0.1:${port}` });
    const render = async (width: number) => {
      const { header, body } = await client.render({ assetSet: 'synthetic', view: 'front_left', color: '#C41E3A', shadow: true, plate: null, format: 'png', width, background: 'studio' }, { deadlineMs: 30_000 });
      let n = 0;
      for await (const c of body) n += (c as Buffer).length;
      return { header, n };
    };
    const hc = spawnSync(process.execPath, [path.join(dist, 'deploy', 'healthcheck.js'), 'renderer'], { env: { RENDERER_PORT: String(port) }, encoding: 'utf8' });
    expect(hc.status, hc.stderr).to.equal(0);
    expect(hc.stdout).to.match(/^serving: backend cpu \(cpu kernel .*\); RENDER_BACKEND=cpu$/m);
    await render(400);
    await render(400); // a cache hit
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).to.contain('renderer_render_duration_seconds_count{backend="cpu",format="png",cache="miss",outcome="ok"} 1');
    expect(text).to.contain('renderer_render_duration_seconds_count{backend="cpu",format="png",cache="hit",outcome="ok"} 1');
    expect(text).to.contain('renderer_render_cache_hit_ratio 0.5');
    expect(text).to.match(/renderer_backend_info\{backend="cpu",renderer="[^"]+",choice="cpu",measured="false"\} 1/);
    for (const m of ['renderer_queue_depth 0', 'renderer_renders_in_flight 0', 'renderer_resource_exhausted_total 0', 'renderer_workers 1']) expect(text).to.contain(m);
    expect(text).to.match(/renderer_render_duration_seconds_bucket\{le="15",/);

    const inflight = render(1600); // a miss, still running when SIGTERM arrives
    // SIGTERM only once the renderer holds the render (a fixed sleep raced on a loaded machine: a call
    // that arrives after SIGTERM is refused, as it should be)
    const until = Date.now() + 60_000;
    while (!(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).includes('renderer_renders_in_flight 1')) {
      if (Date.now() > until) throw new Error('the render never reached the renderer');
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGTERM');
    const done = await inflight;
    expect(done.n).to.be.greaterThan(1000);
    client.close();
    expect(await exited(child, 30_000)).to.deep.equal({ code: 0, signal: null });
    expect(output).to.contain('renderer stopped');
  });

  it('node dist/renderer/main.js with a spin frame baking: SIGTERM abandons the bake, ends the compiled frame-baker child and exits 0', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'signals-spin-'));
    try {
      const assets = path.join(tmp, 'assets');
      fs.mkdirSync(assets);
      const { makeSpinSet } = await import('../support/spin-set.ts');
      const setId = path.basename(await makeSpinSet(assets));
      const port = await freePort();
      const child = spawn(process.execPath, [path.join(dist, 'renderer', 'main.js')], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, RENDERER_PORT: String(port), RENDERER_HOST: '127.0.0.1', RENDERER_METRICS_PORT: 'off', RENDER_BACKEND: 'cpu', RENDER_WORKERS: '1', RENDER_CACHE_MB: '64', RENDER_WARMUP: 'false', ASSETS_DIR: assets, SPIN_FRAMES_DIR: path.join(tmp, 'frames'), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      await waitForOutput(child, /renderer listening/, 90_000);
      const client = createRendererClient({ addresses: `127.0.0.1:${port}` });
      // a 1600 px frame at 16 samples a pixel: seconds of lavapipe, still shooting when SIGTERM comes
      const inflight = client
        .render({ assetSet: setId, view: 'yaw-090', color: '#C41E3A', shadow: true, plate: null, format: 'png', width: 1600, background: 'studio' }, { deadlineMs: 120_000 })
        .then(() => 'rendered', (e: { code?: string }) => e.code ?? 'failed');
      await waitForOutput(child, /spin frame baker started/, 90_000);
      const baker = descendants(child.pid!);
      expect(baker, 'the frame-baker child').to.have.length(1);
      child.kill('SIGTERM');
      expect(await inflight).to.equal('unavailable');
      client.close();
      expect(await exited(child, 30_000)).to.deep.equal({ code: 0, signal: null });
      expect(running(baker[0]!), 'no orphan frame baker').to.equal(false);
      expect(output).to.not.contain('spin frame baked');
      const frames = path.join(tmp, 'frames');
      const written = fs.existsSync(frames) ? fs.readdirSync(frames, { recursive: true }).filter((f) => String(f).endsWith('frame.json')) : [];
      expect(written, 'no frame written').to.deep.equal([]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('node dist/gateway/migrate-main.js (the migration Job) migrates DATABASE_URL and exits 0; refuses without it', async function () {
    const none = spawnSync(process.execPath, [path.join(dist, 'gateway', 'migrate-main.js')], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(none.status).to.equal(1);
    expect(none.stderr).to.contain('DATABASE_URL');
    if (!REAL_DATABASE_URL) this.skip(); // needs a PostgreSQL server (the CI's second run has one)
    const scratch = (await createScratchDatabase())!;
    try {
      const r = spawnSync(process.execPath, [path.join(dist, 'gateway', 'migrate-main.js')], { env: { PATH: process.env.PATH, DATABASE_URL: scratch.url }, encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.contain('migrations applied');
    } finally {
      await scratch.drop();
    }
  });

  it('SIGTERM to `npm start` stops node and the local renderer too', async function () {
    this.timeout(360_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-npm-'));
    dirs.push(dataDir);
    await seedEmbeddedDatabase(dataDir);
    const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: baseEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    // npm, then tsx compiling the gateway and the renderer it forks as they load: this case took 97 s in all at load 13
    await waitForOutput(child, /up at http:\/\/localhost:(\d+)/, 200_000);
    const tree = descendants(child.pid!);
    trees.push(...tree);
    expect(tree.length, 'npm runs node (and node the renderer)').to.be.greaterThan(1);
    child.kill('SIGTERM');
    await exited(child, 30_000);
    const deadline = Date.now() + 20_000;
    while (tree.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(tree.filter(running), 'processes left running').to.deep.equal([]);
  });
});
