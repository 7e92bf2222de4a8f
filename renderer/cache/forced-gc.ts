import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Frees shared memory the process has let go of. A SharedArrayBuffer's memory returns only when the
 * last isolate holding it collects the object, and V8 does not count that memory towards its own
 * collection heuristics: the main thread's old generation grows slowly, so evicted layers (tens of MB
 * each at 2400 px) stayed in RSS until some unrelated major collection — the soak reached 1.2 GB over
 * a 256 MB budget. Once `threshold` bytes have been dropped, a full collection is scheduled (after the
 * current task, so the dropped objects are unreachable). It pauses this thread for a few ms, at most
 * once per `threshold` bytes of evictions, which each already cost a decode of that size.
 */
export class ForcedGc {
  private dropped = 0;
  private scheduled = false;
  private readonly collect: () => void;

  constructor(private readonly threshold = 64 * 1024 * 1024) {
    v8.setFlagsFromString('--expose-gc');
    this.collect = vm.runInNewContext('gc') as () => void;
  }

  /** `bytes` of shared memory are no longer referenced by this thread's own structures. */
  note(bytes: number): void {
    this.dropped += bytes;
    if (this.dropped < this.threshold || this.scheduled) return;
    this.dropped = 0;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.collect();
    });
  }
}
