/**
 * Prints the sliding-minute limiter's accuracy against an exact sliding log and its worst case for
 * bursts at minute edges (docs/limits.md). Uses the in-process limiter, which decides identically to the
 * Redis one (test/gateway/limits/semantics.test.ts checks that call by call).
 *   npx tsx test/bench/limiter-accuracy.ts
 */
import { createMemoryLimiter } from '../../gateway/limits/memory-limiter.ts';
import { arrivals, exactSlidingLog } from '../gateway/limits/helpers.ts';

const T0 = Date.UTC(2031, 4, 10, 12, 0, 0);

/** Most admitted timestamps inside any half-open 60 s span, and where that span starts. */
function maxIn60s(ts: number[]): { max: number; from: number } {
  let best = { max: 0, from: 0 };
  let lo = 0;
  for (let hi = 0; hi < ts.length; hi++) {
    while (ts[hi]! - ts[lo]! >= 60_000) lo++;
    if (hi - lo + 1 > best.max) best = { max: hi - lo + 1, from: ts[lo]! };
  }
  return best;
}

async function run(limit: number, times: number[]): Promise<number[]> {
  let now = 0;
  const l = createMemoryLimiter({ clock: () => now });
  const out: number[] = [];
  for (const t of times) {
    now = t;
    if ((await l.consume({ keyId: 'k', orgId: 'o', rpmLimit: limit, monthlyQuota: 1e12 })).allowed) out.push(t);
  }
  return out;
}

async function accuracy(): Promise<void> {
  console.log('## Accuracy: admitted vs an exact sliding log, limit 60/min, 30 min, start 17.345 s into a minute');
  console.log('| arrivals | load | limiter | exact log | difference |\n| --- | --- | --- | --- | --- |');
  for (const kind of ['poisson', 'uniform'] as const) {
    for (const load of [0.5, 0.9, 1, 1.1, 2, 10]) {
      const start = T0 + 17_345;
      const times = arrivals(kind, 60 * load, 30, 42 + load * 10).map((t) => start + t);
      const got = (await run(60, times)).length;
      const ref = exactSlidingLog(60);
      const want = times.filter((t) => ref(t)).length;
      console.log(`| ${kind} | ${load}× | ${got} | ${want} | ${(((got - want) / want) * 100).toFixed(2)}% |`);
    }
  }
}

async function worstCase(): Promise<void> {
  console.log('\n## Worst case in any 60 s span');
  console.log('| limit L | scenario | most admitted in 60 s | span starts at | ratio to L |\n| --- | --- | --- | --- | --- |');
  for (const L of [12, 60, 1000]) {
    // (a) idle, then a burst of L at offset b into minute 0, then a request every 5 ms for 2 minutes.
    let best = { max: 0, from: 0, b: 0 };
    for (let b = 0; b < 60_000; b += 2_500) {
      const burstAt = T0 + b;
      const times = [...Array.from({ length: L }, () => burstAt)];
      for (let t = burstAt + 5; t < T0 + 180_000; t += 5) times.push(t);
      const r = maxIn60s(await run(L, times));
      if (r.max > best.max) best = { ...r, b };
    }
    // and at the very last millisecond of the minute
    {
      const burstAt = T0 + 59_999;
      const times = [...Array.from({ length: L }, () => burstAt)];
      for (let t = burstAt + 1; t < T0 + 180_000; t += 5) times.push(t);
      const r = maxIn60s(await run(L, times));
      if (r.max > best.max) best = { ...r, b: 59_999 };
    }
    console.log(`| ${L} | burst of L at ${(best.b / 1000).toFixed(3)} s into a minute, then a flood | ${best.max} | ${((best.from - T0) / 1000).toFixed(3)} s | ${(best.max / L).toFixed(3)} |`);
    // (b) a steady flood (every 5 ms) for 30 minutes.
    const flood: number[] = [];
    for (let t = T0; t < T0 + 30 * 60_000; t += 5) flood.push(t);
    const adm = await run(L, flood);
    const r = maxIn60s(adm);
    console.log(`| ${L} | flood every 5 ms for 30 min (avg ${(adm.length / 30).toFixed(1)}/min) | ${r.max} | ${(((r.from - T0) % 60_000) / 1000).toFixed(3)} s into a minute | ${(r.max / L).toFixed(3)} |`);
  }
}

await accuracy();
await worstCase();
