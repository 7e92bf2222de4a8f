import { parentPort } from 'node:worker_threads';
import { compositeKernel, type KernelInput } from './kernel.ts';

/** A cpu compositing worker: runs the kernel on shared buffers and answers with the job id. */
parentPort!.on('message', (msg: { id: number; input: KernelInput }) => {
  try {
    compositeKernel(msg.input);
    parentPort!.postMessage({ id: msg.id, ok: true });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, ok: false, error: (e as Error).stack ?? String(e) });
  }
});
parentPort!.postMessage({ ready: true });
