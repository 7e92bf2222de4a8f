/**
 * `npm run bench:gateway-cpu`: the CPU a request of the gateway's `GET /v1/makes` next to a bare
 * Express handler answering the same JSON, measured so that this shared machine's noise falls on both
 * alike: each runs in a child process of its own, and the load (autocannon, in this process) goes to
 * one for PHASE_S seconds, then to the other, PAIRS times, alternating which goes first; each phase's
 * figure is the child's user + system CPU time (from /proc/<pid>/stat) over the requests it answered.
 * Requests per second on 2 shared cores move with the other jobs (performance-gateway.md); the CPU a
 * request moves far less, so this is the figure to compare a change with.
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

interface Served {
  url: string;
  key: string;
}

async function serve(which: 'gateway' | 'bare'): Promise<void> {
  const { startTestGateway } = await import('../gateway/support/gateway-fixture.ts');
  const gw = await startTestGateway();
  const key = (await gw.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
  let served: Served = { url: `${gw.url}/v1/makes`, key };
  if (which === 'bare') {
    const body: unknown = await (await fetch(served.url, { headers: { 'x-api-key': key } })).json();
    await gw.close();
    const { startBareExpress } = await import('./bare-express.ts');
    served = { url: (await startBareExpress(body)).url, key };
  }
  process.send!(served);
}

async function drive(): Promise<void> {
  const pairs = Number(process.env.PAIRS ?? 10);
  const phaseS = Number(process.env.PHASE_S ?? 3);
  const connections = Number(process.env.CONNECTIONS ?? 4);
  const start = async (which: 'gateway' | 'bare') => {
    const child = fork(new URL(import.meta.url), [which], { execArgv: ['--import', 'tsx'] });
    const served = await new Promise<Served>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Served));
      child.once('exit', (code) => reject(new Error(`${which} exited with ${code} before serving`)));
    });
    return { child, ...served };
  };
  const cpuMs = (child: ChildProcess) => {
    const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  };
  const gateway = await start('gateway');
  const bare = await start('bare');
  const phase = async (s: typeof gateway, seconds: number) => {
    const c0 = cpuMs(s.child);
    const r = await autocannon({ url: s.url, connections, duration: seconds, headers: { 'x-api-key': s.key } });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return ((cpuMs(s.child) - c0) * 1000) / r.requests.total;
  };
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  await phase(gateway, 2); // warm-up, not counted
  await phase(bare, 2);
  const g: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      g.push(await phase(gateway, phaseS));
      b.push(await phase(bare, phaseS));
    } else {
      b.push(await phase(bare, phaseS));
      g.push(await phase(gateway, phaseS));
    }
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1]!;
  console.log(`gateway µs/request: ${g.map((x) => x.toFixed(0)).join(' ')}`);
  console.log(`bare    µs/request: ${b.map((x) => x.toFixed(0)).join(' ')}`);
  console.log(
    `median CPU a request: gateway ${median(g).toFixed(0)} µs, bare ${median(b).toFixed(0)} µs; bare ÷ gateway per pair, median ${median(g.map((x, i) => b[i]! / x)).toFixed(3)} (${pairs} pairs of ${phaseS} s, ${connections} connections); load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
  gateway.child.kill();
  bare.child.kill();
}

if (role === 'gateway' || role === 'bare') await serve(role);
else await drive();
