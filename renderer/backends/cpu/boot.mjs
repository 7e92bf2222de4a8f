// Worker-thread bootstrap: workers do not inherit tsx's loader, so register it before loading the
// TypeScript worker module named in workerData.entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
