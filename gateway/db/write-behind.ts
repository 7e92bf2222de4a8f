/**
 * Write-behind of keyed deltas: callers add deltas in memory, one flush writes them all in one batch,
 * every `flushMs` and on close(). The caller supplies the write (its own SQL) and the log lines; this
 * module owns the bookkeeping both the monthly limiter counts and the per-day usage counts need:
 *
 * - a failed write puts its deltas back (merged with those added meanwhile) for the next flush,
 *   so nothing is dropped silently or counted twice;
 * - flushes and `exclusive` reads are serialised, so a reader never sees a batch half-way
 *   (both pending and stored, or neither);
 * - close() stops the timer and flushes once more; what that last flush could not write is handed
 *   to `onCloseFailed` for the caller to log.
 */
export interface WriteBehindOptions<K, D> {
  /** Pending deltas with the same key are merged into one. */
  keyOf(delta: D): K;
  /** Combines two deltas of one key; must not depend on their order (a failed batch is merged back behind newer deltas). */
  merge(a: D, b: D): D;
  /** Writes one batch; throwing keeps the whole batch pending. */
  write(batch: D[]): Promise<void>;
  /** 0 or less: no timer (flush() / close() only). */
  flushMs: number;
  /** A flush failed; the batch is pending again. `failedFlushes` counts this one. */
  onFlushFailed(err: unknown, batch: D[], failedFlushes: number): void;
  /**
   * The final flush of close() failed, or did not end within `closeTimeoutMs`: `lost` will never be
   * written (past the timeout: may not be; the write still running could yet land).
   */
  onCloseFailed(err: unknown, lost: D[]): void;
  /**
   * How long close() waits for its final flush (and any flush still running before it) before it
   * hands what is unwritten to onCloseFailed and gives up; none by default. A stalled database must
   * not hold a shutdown past the point where the process is killed without a word.
   */
  closeTimeoutMs?: number;
}

export interface WriteBehind<K, D> {
  add(delta: D): void;
  /** The pending (merged) delta of one key. */
  get(key: K): D | undefined;
  /** Writes the pending deltas in one batch; on failure they stay pending and the error is thrown. */
  flush(): Promise<void>;
  /** Runs `read` with the pending deltas, serialised with flushes. */
  exclusive<T>(read: (pending: ReadonlyMap<K, D>) => Promise<T>): Promise<T>;
  /** Stops the timer and flushes (throws, after onCloseFailed, if the last flush fails). Once only. */
  close(): Promise<void>;
  readonly closed: boolean;
  readonly failedFlushes: number;
}

export function createWriteBehind<K, D>(opts: WriteBehindOptions<K, D>): WriteBehind<K, D> {
  let pending = new Map<K, D>();
  let failed = 0;
  let closed = false;
  let lock: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = lock.then(fn, fn);
    lock = p.catch(() => {});
    return p;
  };

  function add(delta: D): void {
    const k = opts.keyOf(delta);
    const cur = pending.get(k);
    pending.set(k, cur === undefined ? delta : opts.merge(cur, delta));
  }

  /** The batch being written now (taken out of `pending`), for close()'s account of what is unwritten. */
  let writing: D[] | null = null;
  const flush = () =>
    exclusive(async () => {
      if (pending.size === 0) return;
      const batch = [...pending.values()];
      pending = new Map();
      writing = batch;
      try {
        await opts.write(batch);
      } catch (err) {
        failed += 1;
        for (const d of batch) add(d); // kept for the next try
        opts.onFlushFailed(err, batch, failed);
        throw err;
      } finally {
        writing = null;
      }
    });

  const timer = opts.flushMs > 0 ? setInterval(() => void flush().catch(() => {}), opts.flushMs) : null;
  // a pending flush must not keep the process alive; close() writes the rest
  timer?.unref();

  return {
    add,
    get: (key) => pending.get(key),
    flush,
    exclusive: (read) => exclusive(() => read(pending)),
    get closed() {
      return closed;
    },
    get failedFlushes() {
      return failed;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      let expired: NodeJS.Timeout | undefined;
      const budget =
        opts.closeTimeoutMs === undefined
          ? null
          : new Promise<never>((_, reject) => {
              expired = setTimeout(() => reject(new Error(`the final flush did not end within ${opts.closeTimeoutMs} ms`)), opts.closeTimeoutMs);
            });
      try {
        await (budget ? Promise.race([flush(), budget]) : flush());
      } catch (err) {
        opts.onCloseFailed(err, [...(writing ?? []), ...pending.values()]);
        throw err;
      } finally {
        clearTimeout(expired);
      }
    },
  };
}
