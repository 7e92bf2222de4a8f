import { ServiceError } from '../shared/errors.ts';

interface Waiter {
  tenant: string;
  start: () => void;
  fail: (e: Error) => void;
  timer: NodeJS.Timeout | null;
  detach: () => void;
}

export interface RunOptions {
  /** Who the render is for (the gateway's `x-org-id` metadata); waiting renders are served round robin by tenant. */
  tenant?: string;
  /** Aborting takes a waiting render out of the queue (nobody waits for it any more). */
  signal?: AbortSignal;
}

const ANONYMOUS = '';

/**
 * Bounds rendering work: at most `concurrency` renders run, at most `queueMax` wait; beyond that a
 * render is refused at once with resource_exhausted (RESOURCE_EXHAUSTED), which is back-pressure the
 * client can act on (retry elsewhere, later) instead of an unbounded queue. A waiter whose deadline
 * passes leaves the queue with deadline_exceeded.
 *
 * Fair between tenants: each tenant (organisation) has its own FIFO, and a freed slot goes to the
 * tenants in turn (round robin), so one tenant's backlog delays another's render by at most one
 * render per tenant ahead of it. When the queue is full, a newcomer from a tenant with fewer waiting
 * renders than the largest backlog takes that backlog's newest place (which is refused instead with
 * resource_exhausted): one tenant cannot fill the queue and lock the others out.
 */
export class RenderQueue {
  private active = 0;
  private size = 0;
  /** Tenants with waiting renders, in round-robin order (the next to serve first). */
  private readonly tenants = new Map<string, Waiter[]>();

  constructor(
    readonly concurrency: number,
    readonly queueMax: number,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.size;
  }

  /** Waiting renders of one tenant (tests, metrics). */
  queuedFor(tenant: string): number {
    return this.tenants.get(tenant)?.length ?? 0;
  }

  async run<T>(fn: () => Promise<T>, deadline = Infinity, opts: RunOptions = {}): Promise<T> {
    if (opts.signal?.aborted) throw cancelled();
    if (this.active >= this.concurrency) {
      const tenant = opts.tenant ?? ANONYMOUS;
      if (this.size >= this.queueMax && !this.evictForNewcomer(tenant)) {
        throw new ServiceError('resource_exhausted', 'The render queue is full, retry later');
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          if (this.remove(w)) reject(cancelled());
        };
        const w: Waiter = {
          tenant,
          start: () => {
            w.detach();
            resolve();
          },
          fail: (e) => {
            w.detach();
            reject(e);
          },
          timer: null,
          detach: () => {
            if (w.timer) clearTimeout(w.timer);
            opts.signal?.removeEventListener('abort', onAbort);
          },
        };
        if (Number.isFinite(deadline)) {
          w.timer = setTimeout(
            () => {
              if (this.remove(w)) w.fail(new ServiceError('deadline_exceeded', 'The deadline passed while the render was queued'));
            },
            Math.max(0, deadline - Date.now()),
          );
        }
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        this.push(w);
      });
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      const next = this.shiftNext();
      if (next) next.start(); // the slot passes straight to the next waiter
      else this.active--;
    }
  }

  private push(w: Waiter): void {
    const list = this.tenants.get(w.tenant);
    if (list) list.push(w);
    else this.tenants.set(w.tenant, [w]);
    this.size++;
  }

  /** The first waiter of the tenant whose turn it is; that tenant goes to the back of the round. */
  private shiftNext(): Waiter | undefined {
    const first = this.tenants.entries().next();
    if (first.done) return undefined;
    const [tenant, list] = first.value;
    const w = list.shift()!;
    this.tenants.delete(tenant);
    if (list.length > 0) this.tenants.set(tenant, list);
    this.size--;
    return w;
  }

  private remove(w: Waiter): boolean {
    const list = this.tenants.get(w.tenant);
    const i = list ? list.indexOf(w) : -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    if (list.length === 0) this.tenants.delete(w.tenant);
    this.size--;
    w.detach();
    return true;
  }

  /** Refuses the newest waiter of the largest backlog if it is larger than the newcomer's tenant's. */
  private evictForNewcomer(tenant: string): boolean {
    let largest: Waiter[] | null = null;
    for (const list of this.tenants.values()) if (!largest || list.length > largest.length) largest = list;
    const mine = this.tenants.get(tenant)?.length ?? 0;
    if (!largest || largest.length <= mine) return false;
    const victim = largest[largest.length - 1]!;
    this.remove(victim);
    victim.fail(new ServiceError('resource_exhausted', 'The render queue is full, retry later'));
    return true;
  }
}

function cancelled(): ServiceError {
  return new ServiceError('unavailable', 'The render was cancelled');
}
