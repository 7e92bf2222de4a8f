/**
 * `npm run bench:gateway-cpu`: the CPU a request of the gateway's `GET /v1/makes` next to a bare
 * Express handler answering the same JSON, measured so that this shared machine's noise falls on both
 * alike: each runs in a child process of its own, and the load (autocannon, in this process) goes to
 * one for PHASE_S seconds, then to the next, PAIRS rounds, turning which goes first; each phase's
 * figure is the child's user + system CPU time (from /proc/<pid>/stat) over the requests it answered.
 * Requests per second on 2 shared cores move with the other jobs (performance-gateway.md); the CPU a
 * request moves far less, so this is the figure to compare a change with.
 *
 * A third child, the same bare app served on the gateway's request/response classes
 * (gateway/http/app-server-classes.ts), runs in every round too: it shows how much of the difference
 * is Express's own cost a request, which those classes cut for the gateway and would cut for any app.
 *
 * The gateway is the test fixture's (startTestGateway: the service's composition root, a scratch
 * database, logs at TEST_LOG_LEVEL, silent by default), so storage is embedded unless DATABASE_URL /
 * REDIS_URL are set, exactly as for the tests. Knobs: PAIRS (10), PHASE_S (3), CONNECTIONS (4).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';

const role = process.argv[2];
const ROLES = ['gateway', 'bare', 'bare-classes'] as const;
type Role = (typeof ROLES)[number];

interface Served {
  url: string;
  key: string;
}

async function serve(which: Role): Promise<void> {
  const { startTestGateway } = await import('../gateway/support/gateway-fixture.ts');
  const gw = await startTestGateway();
  const key = (await gw.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
  let served: Served = { url: `${gw.url}/v1/makes`, key };
  if (which !== 'gateway') {
    const body: unknown = await (await fetch(served.url, { headers: { 'x-api-key': key } })).json();
    await gw.close();
    const { startBareExpress } = await import('./bare-express.ts');
    served = { url: (await startBareExpress(body, '/bare', { appClasses: which === 'bare-classes' })).url, key };
  }
  process.send!(served);
}

async function drive(): Promise<void> {
  const pairs = Number(process.env.PAIRS ?? 10);
  const phaseS = Number(process.env.PHASE_S ?? 3);
  const connections = Number(process.env.CONNECTIONS ?? 4);
  const start = async (which: Role) => {
    const child = fork(new URL(import.meta.url), [which], { execArgv: ['--import', 'tsx'] });
    const served = await new Promise<Served>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Served));
      child.once('exit', (code) => reject(new Error(`${which} exited with ${code} before serving`)));
    });
    return { child, which, ...served };
  };
  const cpuMs = (child: ChildProcess) => {
    const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  };
  const servers: Awaited<ReturnType<typeof start>>[] = [];
  for (const which of ROLES) servers.push(await start(which));
  const phase = async (s: (typeof servers)[number], seconds: number) => {
    const c0 = cpuMs(s.child);
    const r = await autocannon({ url: s.url, connections, duration: seconds, headers: { 'x-api-key': s.key } });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return ((cpuMs(s.child) - c0) * 1000) / r.requests.total;
  };
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const s of servers) await phase(s, 2); // warm-up, not counted
  const cpu: number[][] = servers.map(() => []);
  for (let i = 0; i < pairs; i++) {
    // the order turns each round, so that no server always runs first or last
    for (let j = 0; j < servers.length; j++) {
      const at = (i + j) % servers.length;
      cpu[at]!.push(await phase(servers[at]!, phaseS));
    }
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1]!;
  const [g, b, c] = cpu as [number[], number[], number[]];
  for (let j = 0; j < servers.length; j++) console.log(`${servers[j]!.which.padEnd(12)} µs/request: ${cpu[j]!.map((x) => x.toFixed(0)).join(' ')}`);
  console.log(
    `median CPU a request: gateway ${median(g).toFixed(0)} µs, bare ${median(b).toFixed(0)} µs, bare on the app classes ${median(c).toFixed(0)} µs; ` +
      `bare ÷ gateway per round, median ${median(g.map((x, i) => b[i]! / x)).toFixed(3)}; bare on the app classes ÷ gateway ${median(g.map((x, i) => c[i]! / x)).toFixed(3)} ` +
      `(${pairs} rounds of ${phaseS} s, ${connections} connections); load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
  for (const s of servers) s.child.kill();
}

if ((ROLES as readonly string[]).includes(role ?? '')) await serve(role as Role);
else await drive();
