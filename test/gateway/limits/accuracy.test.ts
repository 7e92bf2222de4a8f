import { expect } from 'chai';
import { arrivals, exactSlidingLog, fakeClock, forEachBackend, memoryUsageStore, rng } from './helpers.ts';

const LIMIT = 60;
const MINUTES = 30;

forEachBackend('sliding-minute accuracy against an exact sliding log', (b) => {
  for (const kind of ['poisson', 'uniform'] as const) {
    for (const load of [0.9, 1, 10]) {
      it(`${kind} arrivals at ${load}× the limit for ${MINUTES} minutes: within 3%`, async () => {
        // Start at a random offset into a minute so that the arrivals do not line up with minute edges.
        const start = Date.UTC(2031, 4, 10, 12, 0, 0) + 17_345;
        const clock = fakeClock(start);
        const l = b.make({ clock, usageStore: memoryUsageStore() });
        const ref = exactSlidingLog(LIMIT);
        let got = 0;
        let want = 0;
        for (const t of arrivals(kind, LIMIT * load, MINUTES, 42 + load * 10)) {
          clock.set(start + t);
          if ((await l.consume({ keyId: 'k', orgId: 'o', rpmLimit: LIMIT, monthlyQuota: 1e9 })).allowed) got++;
          if (ref(start + t)) want++;
        }
        const err = Math.abs(got - want) / want;
        console.log(`      ${b.name} ${kind} ${load}×: admitted ${got}, exact log ${want}, difference ${(err * 100).toFixed(2)}%`);
        expect(err).to.be.at.most(0.03);
      });
    }
  }
});
