/**
 * Long pixel loops written once as generators that yield between slices of their work, and run
 * either straight through (tests, tools: `runNow`) or paced (`runPaced`): the renderer builds a view's
 * level on its main thread, where a 2400 px level's reduction is 100–200 ms of JavaScript; paced, gRPC
 * calls, cache hits and the cpu workers' hand-offs get the event loop every few milliseconds instead
 * of waiting for the whole level (docs/performance-renderer.md, "Levels built in slices").
 */
export type Sliced<T> = Generator<void, T, void>;

/** The work to its end, at once. */
export function runNow<T>(work: Sliced<T>): T {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

/** Slices of the work until about `sliceMs` has passed, then the event loop's turn (setImmediate), until it ends. */
export async function runPaced<T>(work: Sliced<T>, sliceMs = 4): Promise<T> {
  let t0 = performance.now();
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
    if (performance.now() - t0 >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      t0 = performance.now();
    }
  }
}
