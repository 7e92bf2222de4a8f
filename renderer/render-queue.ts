import { ServiceError } from '../shared/errors.ts';

/**
 * Bounds rendering work: at most `concurrency` renders run, at most `queueMax` wait; beyond that a
 * render is refused at once with resource_exhausted (RESOURCE_EXHAUSTED), which is back-pressure the
 * client can act on (retry elsewhere, later) instead of an unbounded queue. A waiter whose deadline
 * passes leaves the queue with deadline_exceeded.
 */
export class RenderQueue {
  private active = 0;
  private readonly waiting: { start: () => void; fail: (e: Error) => void; timer: NodeJS.Timeout | null }[] = [];

  constructor(
    readonly concurrency: number,
    readonly queueMax: number,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(fn: () => Promise<T>, deadline = Infinity): Promise<T> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.queueMax) {
        throw new ServiceError('resource_exhausted', 'The render queue is full, retry later');
      }
      await new Promise<void>((resolve, reject) => {
        const entry = {
          start: () => {
            if (entry.timer) clearTimeout(entry.timer);
            resolve();
          },
          fail: reject,
          timer: null as NodeJS.Timeout | null,
        };
        if (Number.isFinite(deadline)) {
          entry.timer = setTimeout(
            () => {
              const i = this.waiting.indexOf(entry);
              if (i >= 0) this.waiting.splice(i, 1);
              reject(new ServiceError('deadline_exceeded', 'The deadline passed while the render was queued'));
            },
            Math.max(0, deadline - Date.now()),
          );
        }
        this.waiting.push(entry);
      });
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next.start(); // the slot passes straight to the next waiter
      else this.active--;
    }
  }
}
