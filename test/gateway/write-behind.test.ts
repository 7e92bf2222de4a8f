import { expect } from 'chai';
import { createWriteBehind, type WriteBehind } from '../../gateway/db/write-behind.ts';

interface Count {
  key: string;
  n: number;
}

/** A real in-memory store the write-behind writes into; `failWith` makes the next writes throw. */
function memoryStore() {
  const store = {
    data: new Map<string, number>(),
    batches: [] as Count[][],
    failWith: null as Error | null,
    async write(batch: Count[]) {
      if (store.failWith) throw store.failWith;
      store.batches.push(batch.map((c) => ({ ...c })));
      for (const c of batch) store.data.set(c.key, (store.data.get(c.key) ?? 0) + c.n);
    },
  };
  return store;
}

function setup(flushMs = 0) {
  const store = memoryStore();
  const log = { flushFailed: [] as Array<{ batch: Count[]; failedFlushes: number }>, lost: [] as Count[][] };
  const wb: WriteBehind<string, Count> = createWriteBehind<string, Count>({
    keyOf: (c) => c.key,
    merge: (a, b) => ({ key: a.key, n: a.n + b.n }),
    write: (batch) => store.write(batch),
    flushMs,
    onFlushFailed: (_err, batch, failedFlushes) => log.flushFailed.push({ batch, failedFlushes }),
    onCloseFailed: (_err, lost) => log.lost.push(lost),
  });
  return { store, log, wb };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('write-behind of keyed deltas', () => {
  it('merges deltas of one key and writes them in one batch; an empty flush writes nothing', async () => {
    const { store, wb } = setup();
    wb.add({ key: 'a', n: 1 });
    wb.add({ key: 'a', n: 2 });
    wb.add({ key: 'b', n: 5 });
    expect(wb.get('a')).to.deep.equal({ key: 'a', n: 3 });
    await wb.flush();
    expect(store.batches).to.deep.equal([[{ key: 'a', n: 3 }, { key: 'b', n: 5 }]]);
    expect(wb.get('a')).to.equal(undefined);
    await wb.flush();
    expect(store.batches).to.have.length(1);
    await wb.close();
  });

  it('a failing flush keeps its deltas, merged with newer ones, and the retry writes each once', async () => {
    const { store, log, wb } = setup();
    wb.add({ key: 'a', n: 4 });
    store.failWith = new Error('connection refused');
    let thrown: unknown = null;
    await wb.flush().catch((e: unknown) => (thrown = e));
    expect(thrown).to.equal(store.failWith);
    expect(wb.failedFlushes).to.equal(1);
    expect(log.flushFailed).to.deep.equal([{ batch: [{ key: 'a', n: 4 }], failedFlushes: 1 }]);
    expect(wb.get('a')).to.deep.equal({ key: 'a', n: 4 });
    wb.add({ key: 'a', n: 1 });
    store.failWith = null;
    await wb.flush();
    await wb.flush();
    expect(store.data.get('a')).to.equal(5);
    expect(wb.failedFlushes).to.equal(1);
  });

  it('the timer retries a failed flush on its own', async () => {
    const { store, wb } = setup(20);
    store.failWith = new Error('down');
    wb.add({ key: 'a', n: 2 });
    await sleep(60);
    expect(wb.failedFlushes).to.be.greaterThan(0);
    expect(store.data.get('a')).to.equal(undefined);
    store.failWith = null;
    for (let i = 0; i < 50 && store.data.get('a') === undefined; i++) await sleep(20);
    expect(store.data.get('a')).to.equal(2);
    await wb.close();
  });

  it('an exclusive read never sees a batch half-way: it waits for the flush in progress', async () => {
    const { store, wb } = setup();
    wb.add({ key: 'a', n: 3 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const write = store.write;
    store.write = async (batch) => {
      await gate;
      return write(batch);
    };
    const flushing = wb.flush();
    const seen = wb.exclusive(async (p) => (store.data.get('a') ?? 0) + (p.get('a')?.n ?? 0));
    release();
    await flushing;
    expect(await seen).to.equal(3);
  });

  it('close flushes once, and reports what its final flush could not write', async () => {
    const ok = setup();
    ok.wb.add({ key: 'a', n: 1 });
    await ok.wb.close();
    await ok.wb.close(); // once only
    expect(ok.wb.closed).to.equal(true);
    expect(ok.store.batches).to.deep.equal([[{ key: 'a', n: 1 }]]);
    expect(ok.log.lost).to.deep.equal([]);

    const failing = setup();
    failing.wb.add({ key: 'b', n: 7 });
    failing.store.failWith = new Error('gone');
    let thrown: unknown = null;
    await failing.wb.close().catch((e: unknown) => (thrown = e));
    expect(thrown).to.equal(failing.store.failWith);
    expect(failing.log.lost).to.deep.equal([[{ key: 'b', n: 7 }]]);
    expect(failing.store.data.size).to.equal(0);
  });

  it('close gives up on a final flush that does not end within its time, and reports the batch being written and the rest', async () => {
    const lost: Count[][] = [];
    let release = () => {};
    const stalled = new Promise<void>((r) => (release = r)); // a database that never answers
    const wb = createWriteBehind<string, Count>({
      keyOf: (c) => c.key,
      merge: (a, b) => ({ key: a.key, n: a.n + b.n }),
      write: () => stalled,
      flushMs: 0,
      onFlushFailed: () => {},
      onCloseFailed: (_err, l) => lost.push(l),
      closeTimeoutMs: 100,
    });
    wb.add({ key: 'a', n: 2 });
    const running = wb.flush(); // a periodic flush stuck in its write
    wb.add({ key: 'b', n: 3 }); // added while it is stuck
    let thrown: Error | null = null;
    await wb.close().catch((e: Error) => (thrown = e));
    expect(thrown!.message).to.equal('the final flush did not end within 100 ms');
    expect(lost).to.deep.equal([[{ key: 'a', n: 2 }, { key: 'b', n: 3 }]]);
    release();
    await running;
  });
});
