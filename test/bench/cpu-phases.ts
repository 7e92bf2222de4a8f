/**
 * The method of the CPU benchmarks (gateway-cpu.bench.ts, express-cost.bench.ts): each server in a
 * child process of its own (the calling script forked with the server's name), and autocannon (in
 * this process) loading one server for a phase, then the next, the order turning each round so that
 * none always runs first or last; each phase's figure is the child's CPU time over the requests it
 * answered, from /proc/<pid>/stat, which a shared machine's other jobs disturb far less than requests/s.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';

export interface Served {
  url: string;
  /** Sent as x-api-key when set. */
  key?: string;
}

export interface ServerChild<N extends string> extends Served {
  name: N;
  child: ChildProcess;
}

/** Forks `script` once per name (argv[2] = the name); each child answers with process.send(Served). */
export async function startChildren<N extends string>(script: URL, names: readonly N[]): Promise<ServerChild<N>[]> {
  const out: ServerChild<N>[] = [];
  for (const name of names) {
    const child = fork(script, [name], { execArgv: ['--import', 'tsx'] });
    const served = await new Promise<Served>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Served));
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before serving`)));
    });
    out.push({ ...served, name, child });
  }
  return out;
}

export interface PhaseOptions {
  rounds: number;
  phaseS: number;
  connections: number;
  /** User CPU only (default: user + system). */
  userOnly?: boolean;
}

/** CPU µs a request of each server (indexed like `servers`), one figure per round, after a 2 s warm-up each. */
export async function cpuPerRequest(servers: readonly ServerChild<string>[], o: PhaseOptions): Promise<number[][]> {
  const cpuMs = (child: ChildProcess) => {
    const f = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(f[11]) + (o.userOnly ? 0 : Number(f[12]))) * 1000) / 100; // clock ticks of 10 ms
  };
  const phase = async (s: ServerChild<string>, seconds: number) => {
    const c0 = cpuMs(s.child);
    const r = await autocannon({ url: s.url, connections: o.connections, duration: seconds, headers: s.key ? { 'x-api-key': s.key } : {} });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return ((cpuMs(s.child) - c0) * 1000) / r.requests.total;
  };
  for (const s of servers) await phase(s, 2); // warm-up, not counted
  const cpu: number[][] = servers.map(() => []);
  for (let i = 0; i < o.rounds; i++) {
    for (let j = 0; j < servers.length; j++) {
      const at = (i + j) % servers.length;
      cpu[at]!.push(await phase(servers[at]!, o.phaseS));
    }
  }
  return cpu;
}

export const median = (v: readonly number[]): number => [...v].sort((x, y) => x - y)[v.length >> 1]!;
export const loadAverage = (): string => os.loadavg().map((x) => x.toFixed(2)).join(' ');
export const machineLine = (): string => `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load ${loadAverage()}`;
