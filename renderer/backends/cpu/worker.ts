import { parentPort } from 'node:worker_threads';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { KernelInput } from './kernel.ts';
import { WasmKernel } from './wasm-kernel.ts';

/**
 * Every job's message references shared memory: the output picture and the view's layers, whole. A
 * SharedArrayBuffer is freed only when every isolate that saw it collects it, and this isolate
 * allocates almost nothing of its own, so it would rarely collect and dead layers and pictures would
 * stay in RSS (issue 8's soak grew ~10 MB a second; issue 10's reached 1.8 GB). The main thread says
 * when it has let go of shared memory (layers evicted, pictures dropped from the pool: `collect`), and
 * the worker then runs a full collection of its small heap, after the message at hand. As a backstop
 * it also collects after its messages referenced 1 GB.
 */
const GC_AFTER_BYTES = 1024 * 1024 * 1024;
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
let sinceGc = 0;
let scheduled = false;
function collectSoon(): void {
  sinceGc = 0;
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    collect();
  });
}

/** This thread's WebAssembly kernel; a module that fails to load fails the worker before it says ready. */
const kernel = new WasmKernel();

/** A cpu compositing worker: runs the kernel on a band of rows of shared buffers and answers with the job id. */
parentPort!.on('message', (msg: { id: number; input: KernelInput; y0: number; y1: number; slot: number } | { collect: true } | { forget: string }) => {
  if ('collect' in msg) {
    collectSoon();
    return;
  }
  if ('forget' in msg) {
    // the Layers left the cache: this thread's instance on its arena must not keep the memory alive
    kernel.forget(msg.forget);
    return;
  }
  try {
    kernel.compositeRows(msg.input, msg.y0, msg.y1, msg.slot);
    parentPort!.postMessage({ id: msg.id, ok: true });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, ok: false, error: (e as Error).stack ?? String(e) });
  }
  const k = msg.input;
  sinceGc +=
    k.out.byteLength + k.base.byteLength + k.paint.byteLength + k.diffuse.byteLength + k.specular.byteLength + (k.shadow?.byteLength ?? 0) + (k.shadowedBase?.byteLength ?? 0) + (k.coverage?.byteLength ?? 0);
  if (sinceGc >= GC_AFTER_BYTES) collectSoon();
});
parentPort!.postMessage({ ready: true });
