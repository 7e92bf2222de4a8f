import { LRUCache } from 'lru-cache';

/**
 * Encoded renders by key (the ETag), bounded by bytes, with single flight: concurrent calls for the
 * same key share one computation, whose result is cached; a failure is not cached.
 */
export class SingleFlightCache<V extends {}> {
  private readonly lru: LRUCache<string, V>;
  private readonly inflight = new Map<string, Promise<V>>();

  constructor(maxBytes: number, size: (v: V) => number) {
    this.lru = new LRUCache<string, V>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (v) => Math.max(1, size(v)) });
  }

  get(key: string): V | undefined {
    return this.lru.get(key);
  }

  /** The cached value, or the running computation's, or a new one. `joined` says which. */
  getOrCompute(key: string, compute: () => Promise<V>): { value: Promise<V>; state: 'hit' | 'joined' | 'miss' } {
    const hit = this.lru.get(key);
    if (hit !== undefined) return { value: Promise.resolve(hit), state: 'hit' };
    const running = this.inflight.get(key);
    if (running) return { value: running, state: 'joined' };
    const p = compute()
      .then((v) => {
        this.lru.set(key, v);
        return v;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return { value: p, state: 'miss' };
  }

  clear(): void {
    this.lru.clear();
  }

  stats(): { bytes: number; entries: number; inflight: number } {
    return { bytes: this.lru.calculatedSize ?? 0, entries: this.lru.size, inflight: this.inflight.size };
  }
}
