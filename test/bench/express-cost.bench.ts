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
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { startBareExpress } from './bare-express.ts';
import { cpuPerRequest, loadAverage, machineLine, median, startChildren } from './cpu-phases.ts';

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
  const servers = await startChildren(new URL(import.meta.url), SERVERS);
  console.log(machineLine());
  const cpu = await cpuPerRequest(servers, { rounds, phaseS, connections, userOnly });
  console.log(`\n| server | ${userOnly ? 'user' : 'user + system'} CPU µs a request, median | rounds |\n| --- | ---: | --- |`);
  for (let j = 0; j < servers.length; j++) console.log(`| ${servers[j]!.name} | ${median(cpu[j]!).toFixed(0)} | ${cpu[j]!.map((x) => x.toFixed(0)).join(' ')} |`);
  console.log(`\n${rounds} rounds of ${phaseS} s, ${connections} connections; load ${loadAverage()}`);
  for (const s of servers) s.child.kill();
}

const role = process.argv[2];
if ((SERVERS as readonly string[]).includes(role ?? '')) process.send!({ url: await serve(role as Server) });
else await drive();
