import { sharedU8 } from './arena.ts';

/**
 * Output pictures handed back after encoding, for the next render of the same size. A fresh
 * SharedArrayBuffer of a 2400 px picture costs its page faults on first write, about as long as the
 * whole composite of its paint (measured 6–8 ms for 9.7 MB on the development machine), so reusing
 * them matters. Bounded by bytes, oldest first out; the kernel writes every byte of a picture, so a
 * reused buffer needs no clearing.
 */
export class BufferPool {
  private readonly free: Uint8Array[] = [];
  private bytes = 0;

  /** `alloc`: how a new buffer is made (shared memory for the cpu workers; plain for the gl readback). */
  constructor(
    private readonly maxBytes: number,
    private readonly alloc: (n: number) => Uint8Array = sharedU8,
  ) {}

  /** A buffer of `n` bytes: the newest pooled one of that size, else a new one. */
  take(n: number): Uint8Array {
    let pick = -1;
    for (let i = this.free.length - 1; i >= 0 && pick < 0; i--) if (this.free[i]!.byteLength === n) pick = i;
    if (pick < 0) return this.alloc(n);
    const b = this.free[pick]!;
    this.free.splice(pick, 1);
    this.bytes -= n;
    return b;
  }

  /** Keeps `b` for reuse; answers the bytes that left the pool instead (b itself, or older buffers). */
  give(b: Uint8Array): number {
    if (b.byteLength > this.maxBytes || b.byteOffset !== 0 || b.byteLength !== b.buffer.byteLength) return b.byteLength;
    this.free.push(b);
    this.bytes += b.byteLength;
    let dropped = 0;
    while (this.bytes > this.maxBytes) {
      const old = this.free.shift()!.byteLength;
      this.bytes -= old;
      dropped += old;
    }
    return dropped;
  }

  get pooledBytes(): number {
    return this.bytes;
  }
}
