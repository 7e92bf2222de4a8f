/**
 * `npm run bench:express-cost`: where a bare Express answer's CPU goes, by serving the same small JSON
 * body (the test catalog's `GET /v1/makes` shape) from simpler and simpler servers. Each server runs in
 * a child process of its own; autocannon (in this process) loads one for PHASE_S seconds, then the
 * next, ROUNDS times, turning the order; each phase's figure is the child's CPU time a request (user
 * + system from /proc/<pid>/stat, or user only with USER_ONLY=1). It is the measurement behind
 * gateway/http/app-server-classes.ts (performance-gateway.md, "Issue 10, fifth pass").
 *
 * - `node`: node's `http.createServer`, the body stringified and ended by hand;
 * - `node+switch`: the same after Express's `Object.setPrototypeOf` of the request and response to an
 *   app's prototypes, and nothing else of Express;
 * - `express-end`: an Express app with the one route, ending the answer by hand;
 * - `express`: the benchmarks' bare Express baseline (`res.json`), served the usual way;
 * - `express-classes`: the same app on the gateway's request classes.
 * Knobs: ROUNDS (6), PHASE_S (3), CONNECTIONS (4).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import autocannon from 'autocannon';
import express from 'express';
import { startBareExpress } from './bare-express.ts';

const SERVERS = ['node', 'node+switch', 'express-end', 'express', 'express-classes'] as const;
type Server = (typeof SERVERS)[number];
const BODY = { makes: [{ id: 'mk_1', slug: 'alcora', name: 'Alcora' }, { id: 'mk_2', slug: 'aurelia', name: 'Aurelia' }] };

function endJson(res: http.ServerResponse): void {
  const text = JSON.stringify(BODY);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

async function listen(server: http.Server): Promise<string> {
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/bare`;
}

async function serve(which: Server): Promise<string> {
  if (which === 'express') return (await startBareExpress(BODY)).url;
  if (which === 'express-classes') return (await startBareExpress(BODY, '/bare', { appClasses: true })).url;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (which === 'express-end') {
    app.get('/bare', (_req, res) => endJson(res));
    return listen(http.createServer(app));
  }
  return listen(
    http.createServer((req, res) => {
      if (which === 'node+switch') {
        Object.setPrototypeOf(req, app.request);
        Object.setPrototypeOf(res, app.response);
      }
      endJson(res);
    }),
  );
}

async function drive(): Promise<void> {
  const rounds = Number(process.env.ROUNDS ?? 6);
  const phaseS = Number(process.env.PHASE_S ?? 3);
  const connections = Number(process.env.CONNECTIONS ?? 4);
  const userOnly = process.env.USER_ONLY === '1';
  const cpuMs = (child: ChildProcess) => {
    const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + (userOnly ? 0 : Number(fields[12]))) * 1000) / 100; // clock ticks of 10 ms
  };
  const children: { which: Server; child: ChildProcess; url: string }[] = [];
  for (const which of SERVERS) {
    const child = fork(new URL(import.meta.url), [which], { execArgv: ['--import', 'tsx'] });
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (m) => resolve(String(m)));
      child.once('exit', (code) => reject(new Error(`${which} exited with ${code} before serving`)));
    });
    children.push({ which, child, url });
  }
  const phase = async (s: (typeof children)[number], seconds: number) => {
    const c0 = cpuMs(s.child);
    const r = await autocannon({ url: s.url, connections, duration: seconds });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.which}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return ((cpuMs(s.child) - c0) * 1000) / r.requests.total;
  };
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const s of children) await phase(s, 2); // warm-up, not counted
  const cpu: number[][] = children.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < children.length; j++) {
      const at = (i + j) % children.length;
      cpu[at]!.push(await phase(children[at]!, phaseS));
    }
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1]!;
  console.log(`\n| server | ${userOnly ? 'user' : 'user + system'} CPU µs a request, median | rounds |\n| --- | ---: | --- |`);
  for (let j = 0; j < children.length; j++) console.log(`| ${children[j]!.which} | ${median(cpu[j]!).toFixed(0)} | ${cpu[j]!.map((x) => x.toFixed(0)).join(' ')} |`);
  console.log(`\n${rounds} rounds of ${phaseS} s, ${connections} connections; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const s of children) s.child.kill();
}

const role = process.argv[2];
if ((SERVERS as readonly string[]).includes(role ?? '')) process.send!(await serve(role as Server));
else await drive();
