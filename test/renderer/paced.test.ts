/**
 * paced.ts: work written as a generator runs to the same result at once and paced, and paced it
 * gives the event loop its turn between slices.
 */
import { expect } from 'chai';
import { runNow, runPaced, type Sliced } from '../../renderer/assets/paced.ts';

function* sumSliced(n: number, log: string[]): Sliced<number> {
  let s = 0;
  for (let i = 1; i <= n; i++) {
    s += i;
    log.push(`step ${i}`);
    yield;
  }
  return s;
}

describe('paced work (renderer/assets/paced.ts)', () => {
  it('runNow drives the work to its end and returns its value', () => {
    const log: string[] = [];
    expect(runNow(sumSliced(100, log))).to.equal(5050);
    expect(log).to.have.length(100);
  });

  it('runPaced returns the same value, and other callbacks run between slices', async () => {
    const log: string[] = [];
    setImmediate(() => log.push('other'));
    const v = await runPaced(sumSliced(5, log), 0);
    expect(v).to.equal(15);
    const other = log.indexOf('other');
    expect(other, 'the other callback ran before the work ended').to.be.within(1, log.length - 2);
  });

  it('runPaced with a long slice runs short work in one go, with no turn given', async () => {
    const log: string[] = [];
    setImmediate(() => log.push('other'));
    await runPaced(sumSliced(5, log), 60_000);
    expect(log.indexOf('other')).to.equal(-1);
  });

  it('a failing step rejects the paced run (and throws from runNow)', async () => {
    function* failing(): Sliced<void> {
      yield;
      throw new Error('bad pixels');
    }
    expect(() => runNow(failing())).to.throw('bad pixels');
    let caught: unknown;
    await runPaced(failing(), 0).catch((e: unknown) => (caught = e));
    expect((caught as Error).message).to.equal('bad pixels');
  });
});
