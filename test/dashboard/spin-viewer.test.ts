// The playground's spin viewer without a browser: its paths, its frame arithmetic and its in-order
// preloading (dashboard/src/playground/spin.ts, framing.ts). The browser test drives the real page.
import { expect } from 'chai';
import { imagePath, type ImageRequest } from '../../dashboard/src/playground/catalog.ts';
import * as pgFraming from '../../dashboard/src/playground/framing.ts';
import * as pgSpin from '../../dashboard/src/playground/spin.ts';
import { FramePending, frameAfterDrag, preloadFrames, spinPath, stepFrame, type SpinRequest } from '../../dashboard/src/playground/spin.ts';
import * as framing from '../../shared/framing.ts';
import * as spin from '../../shared/spin.ts';

const options = { color: 'red', shadow: true, plate: '', format: 'webp', width: 800, background: 'studio' as const, ...pgFraming.DEFAULT_FRAMING_CHOICE };

/** A loader whose loads the test settles itself, in any order. */
function manualLoader() {
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  const started: number[] = [];
  return {
    started,
    inFlight: () => [...pending.keys()],
    load: (i: number) =>
      new Promise<void>((resolve, reject) => {
        started.push(i);
        pending.set(i, { resolve, reject });
      }),
    settle(i: number, ok: boolean | FramePending) {
      const p = pending.get(i)!;
      pending.delete(i);
      if (ok === true) p.resolve();
      else p.reject(ok === false ? new Error(`frame ${i} refused`) : ok);
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('dashboard: the playground spin viewer (playground/spin.ts)', () => {
  it('keeps the same lists and limits as shared/spin.ts and shared/framing.ts', () => {
    expect(pgSpin.SPIN_FRAME_COUNTS).to.deep.equal(spin.SPIN_FRAME_COUNTS);
    expect(pgSpin.SPIN_FRAMES_DEFAULT).to.equal(spin.SPIN_FRAMES_DEFAULT);
    expect([pgSpin.SPIN_WIDTH_MIN, pgSpin.SPIN_WIDTH_MAX]).to.deep.equal([spin.SPIN_WIDTH_MIN, spin.SPIN_WIDTH_MAX]);
    expect(pgFraming.FRAMINGS).to.deep.equal(framing.FRAMINGS);
    expect(pgFraming.ASPECTS).to.deep.equal(framing.ASPECTS);
    expect([pgFraming.MARGIN_MIN, pgFraming.MARGIN_MAX, pgFraming.MARGIN_DEFAULT]).to.deep.equal([framing.MARGIN_MIN, framing.MARGIN_MAX, framing.MARGIN_DEFAULT]);
    expect(pgFraming.DEFAULT_FRAMING_CHOICE).to.deep.equal(framing.DEFAULT_FRAMING_OPTIONS);
  });

  it('builds the spin path with the image call\'s option names, the width clamped, framing only when not the default', () => {
    const r: SpinRequest = { vehicleId: 'veh_a/b', frames: 8, ...options, width: 2400, plate: ' NW 1 ', background: 'transparent' };
    const p = new URL(spinPath(r), 'http://x');
    expect(p.pathname).to.equal('/v1/vehicles/veh_a%2Fb/spin');
    expect(Object.fromEntries(p.searchParams)).to.deep.equal({
      frames: '8', color: 'red', shadow: 'true', plate: 'NW 1', format: 'webp', width: '1600', background: 'transparent',
    });
    expect(new URL(spinPath({ ...r, width: 120 }), 'http://x').searchParams.get('width')).to.equal('200');
    const fit = new URL(spinPath({ ...r, framing: 'fit', margin: 12, aspect: '1:1' }), 'http://x').searchParams;
    expect([fit.get('framing'), fit.get('margin'), fit.get('aspect')]).to.deep.equal(['fit', '12', '1:1']);
    // studio at another aspect: no margin (it only counts with fit)
    const studio = new URL(spinPath({ ...r, margin: 12, aspect: '4:3' }), 'http://x').searchParams;
    expect([studio.get('framing'), studio.get('margin'), studio.get('aspect')]).to.deep.equal([null, null, '4:3']);
  });

  it('puts the framing in the image path the same way, and leaves a default request\'s path as it was', () => {
    const r: ImageRequest = { make: 'aurelia', model: 'vento', year: 2024, variant: 'gt', view: 'front', ...options };
    expect(imagePath(r)).to.equal('/v1/makes/aurelia/models/vento/2024/gt/front?color=red&shadow=true&format=webp&width=800');
    expect(imagePath({ ...r, framing: 'fit', margin: 0, aspect: '1:1' })).to.match(/&framing=fit&margin=0&aspect=1%3A1$/);
    // what the page sends is what the gateway parses
    const q = Object.fromEntries(new URL(imagePath({ ...r, framing: 'fit', margin: 40, aspect: '2:1' }), 'http://x').searchParams);
    expect(framing.parseFramingOptions(q)).to.deep.equal({ framing: 'fit', margin: 40, aspect: '2:1' });
  });

  it('steps round the turntable and maps a drag to frames: one viewer width is one turn, rightwards to higher yaw', () => {
    expect(stepFrame(7, 1, 8)).to.equal(0);
    expect(stepFrame(0, -1, 8)).to.equal(7);
    expect(stepFrame(3, -11, 8)).to.equal(0);
    expect(frameAfterDrag(0, 400, 400, 8)).to.equal(0); // a whole turn
    expect(frameAfterDrag(0, 100, 400, 8)).to.equal(2); // a quarter: yaw 90
    expect(frameAfterDrag(0, -100, 400, 8)).to.equal(6); // a quarter the other way: yaw 270
    expect(frameAfterDrag(2, 24, 400, 8)).to.equal(2); // under half a frame's share: no step
    expect(frameAfterDrag(2, 26, 400, 8)).to.equal(3);
    expect(frameAfterDrag(5, 80, 0, 8)).to.equal(5); // not laid out: stays
  });

  it('preloads in order, at most `concurrency` at once, the first frames first', async () => {
    const l = manualLoader();
    const settled: Array<[number, string]> = [];
    const done = preloadFrames([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], { concurrency: 4, retryDelayMs: 0, pendingBudgetMs: 0, load: l.load, onSettled: (i, s) => settled.push([i, s]), signal: new AbortController().signal });
    await tick();
    expect(l.started).to.deep.equal([0, 1, 2, 3]);
    l.settle(2, true);
    await tick();
    expect(l.started).to.deep.equal([0, 1, 2, 3, 4]);
    expect(l.inFlight()).to.have.length(4);
    let most = 0;
    while (l.inFlight().length > 0) {
      most = Math.max(most, l.inFlight().length);
      l.settle(Math.min(...l.inFlight()), true);
      await tick();
    }
    await done;
    expect(l.started).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).to.equal(4);
    expect(settled.map(([i]) => i).sort((a, b) => a - b)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(settled.every(([, s]) => s === 'loaded')).to.equal(true);
  });

  it('retries a failed frame once after the delay, then marks it failed', async () => {
    const l = manualLoader();
    const settled = new Map<number, string>();
    const sleeps: number[] = [];
    const done = preloadFrames([0, 1, 2], {
      concurrency: 4,
      retryDelayMs: 1500,
      pendingBudgetMs: 60_000,
      load: l.load,
      onSettled: (i, s) => settled.set(i, s),
      signal: new AbortController().signal,
      sleep: async (ms) => void sleeps.push(ms),
    });
    await tick();
    l.settle(0, false); // once: retried, then it comes
    l.settle(1, false); // twice: marked
    l.settle(2, true);
    await tick();
    expect(sleeps).to.deep.equal([1500, 1500]);
    expect(l.started).to.deep.equal([0, 1, 2, 0, 1]);
    l.settle(0, true);
    l.settle(1, false);
    await done;
    expect([...settled.entries()].sort()).to.deep.equal([[0, 'loaded'], [1, 'failed'], [2, 'loaded']]);
  });

  it('waits out a pending frame as long as its Retry-After says, within the budget, without spending the one retry', async () => {
    const l = manualLoader();
    const settled: Array<[number, string]> = [];
    const sleeps: number[] = [];
    let clock = 0;
    const done = preloadFrames([0, 1], {
      concurrency: 2,
      retryDelayMs: 1500,
      pendingBudgetMs: 100_000,
      load: l.load,
      onSettled: (i, s) => settled.push([i, s]),
      signal: new AbortController().signal,
      now: () => clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
    });
    await tick();
    // frame 0: pending three times (0.2 s is waited as 1 s, 90 s as 60 s), then a failure and its retry, then there
    l.settle(0, new FramePending(0.2));
    await tick();
    l.settle(0, new FramePending(90));
    await tick();
    l.settle(0, new FramePending(30));
    await tick();
    l.settle(0, false);
    await tick();
    l.settle(0, true);
    // frame 1: pending past the budget (the clock has moved 1+60+30+1.5 s of its 100 s): marked failed
    l.settle(1, new FramePending(20));
    await tick();
    await done;
    expect(sleeps).to.deep.equal([1000, 60_000, 30_000, 1500]);
    expect(settled).to.deep.equal([[0, 'baking'], [0, 'baking'], [0, 'baking'], [0, 'loaded'], [1, 'failed']]);
  });

  it('loads only the frames it is given (a second round for those marked failed), in their order', async () => {
    const l = manualLoader();
    const settled: number[] = [];
    const done = preloadFrames([5, 2, 7], { concurrency: 2, retryDelayMs: 0, pendingBudgetMs: 0, load: l.load, onSettled: (i) => settled.push(i), signal: new AbortController().signal });
    await tick();
    expect(l.started).to.deep.equal([5, 2]);
    l.settle(5, true);
    await tick();
    l.settle(2, true);
    l.settle(7, true);
    await done;
    expect(l.started).to.deep.equal([5, 2, 7]);
    expect(settled).to.deep.equal([5, 2, 7]);
  });

  it('stops starting frames and reports nothing once aborted', async () => {
    const l = manualLoader();
    const ctl = new AbortController();
    const settled: number[] = [];
    const done = preloadFrames([0, 1, 2, 3, 4, 5, 6, 7], { concurrency: 2, retryDelayMs: 0, pendingBudgetMs: 0, load: l.load, onSettled: (i) => settled.push(i), signal: ctl.signal });
    await tick();
    ctl.abort();
    l.settle(0, true);
    l.settle(1, true);
    await done;
    expect(l.started).to.deep.equal([0, 1]);
    expect(settled).to.deep.equal([]);
  });
});
