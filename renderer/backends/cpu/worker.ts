import { parentPort } from 'node:worker_threads';
import v8 from 'node:v8';
import vm from 'node:vm';
import { compositeRows, type KernelInput } from './kernel.ts';

/**
 * Every job brings a new output SharedArrayBuffer (several MB). The worker itself allocates almost
 * nothing, so its isolate rarely collects garbage, and each dead message keeps its output buffer's
 * memory alive across threads: RSS grew by ~10 MB a second under load (issue 8's soak). The worker
 * therefore collects once the outputs it has seen since its last collection pass 32 MB — a full GC of
 * this tiny heap takes about a millisecond, and memory stays flat (test/renderer/soak.test.ts).
 */
const GC_AFTER_BYTES = 32 * 1024 * 1024;
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
  sinceGc += (msg.input.out.byteLength * (msg.y1 - msg.y0)) / msg.input.height;
  if (sinceGc >= GC_AFTER_BYTES) {
    sinceGc = 0;
    setImmediate(collect); // after this message (and its references) is gone
  }
});
parentPort!.postMessage({ ready: true });
