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
import { cpuPerRequest, loadAverage, machineLine, median, startChildren, type Served } from './cpu-phases.ts';

const role = process.argv[2];
const ROLES = ['gateway', 'bare', 'bare-classes'] as const;
type Role = (typeof ROLES)[number];

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
  const rounds = Number(process.env.PAIRS ?? 10);
  const phaseS = Number(process.env.PHASE_S ?? 3);
  const connections = Number(process.env.CONNECTIONS ?? 4);
  const servers = await startChildren(new URL(import.meta.url), ROLES);
  console.log(machineLine());
  const cpu = await cpuPerRequest(servers, { rounds, phaseS, connections });
  const [g, b, c] = cpu as [number[], number[], number[]];
  for (let j = 0; j < servers.length; j++) console.log(`${servers[j]!.name.padEnd(12)} µs/request: ${cpu[j]!.map((x) => x.toFixed(0)).join(' ')}`);
  console.log(
    `median CPU a request: gateway ${median(g).toFixed(0)} µs, bare ${median(b).toFixed(0)} µs, bare on the app classes ${median(c).toFixed(0)} µs; ` +
      `bare ÷ gateway per round, median ${median(g.map((x, i) => b[i]! / x)).toFixed(3)}; bare on the app classes ÷ gateway ${median(g.map((x, i) => c[i]! / x)).toFixed(3)} ` +
      `(${rounds} rounds of ${phaseS} s, ${connections} connections); load ${loadAverage()}`,
  );
  for (const s of servers) s.child.kill();
}

if ((ROLES as readonly string[]).includes(role ?? '')) await serve(role as Role);
else await drive();
