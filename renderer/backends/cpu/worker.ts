import { parentPort } from 'node:worker_threads';
import v8 from 'node:v8';
import vm from 'node:vm';
import { compositeRows, type KernelInput } from './kernel.ts';

/**
 * Every job's message references shared memory: the output picture and the view's layers, whole,
 * whatever band of rows it asks for. The worker itself allocates almost nothing, so its isolate rarely
 * collects garbage, and each dead message keeps those buffers alive across threads after the main
 * thread has let them go (an output dropped from the pool, layers evicted from the cache): RSS grew by
 * ~10 MB a second under load (issue 8's soak), and again by gigabytes once every picture was split
 * across all workers while only the band's share of the output was counted. The worker therefore
 * collects once the shared bytes its messages referenced since its last collection pass 64 MB — a
 * full GC of this tiny heap takes about a millisecond, and memory stays flat
 * (test/renderer/soak.test.ts, `npm run bench:render -- --soak 120`).
 */
const GC_AFTER_BYTES = 64 * 1024 * 1024;
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
let sinceGc = 0;

/** A cpu compositing worker: runs the kernel on a band of rows of shared buffers and answers with the job id. */
parentPort!.on('message', (msg: { id: number; input: KernelInput; y0: number; y1: number }) => {
  try {
    compositeRows(msg.input, msg.y0, msg.y1);
    parentPort!.postMessage({ id: msg.id, ok: true });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, ok: false, error: (e as Error).stack ?? String(e) });
  }
  const k = msg.input;
  sinceGc +=
    k.out.byteLength + k.base.byteLength + k.paint.byteLength + k.diffuse.byteLength + k.specular.byteLength + (k.shadow?.byteLength ?? 0) + (k.coverage?.byteLength ?? 0);
  if (sinceGc >= GC_AFTER_BYTES) {
    sinceGc = 0;
    setImmediate(collect); // after this message (and its references) is gone
  }
});
parentPort!.postMessage({ ready: true });
