import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Logger } from '../../shared/logger.ts';
import { layersOfPlanes, type Layers, type PlaneSet } from './layers.ts';
import type { LevelExtras, LevelPlanes } from './level-extras.ts';
import type { LevelGeometry } from './reduce-layers.ts';
import { levelCode } from './level-code.ts';

/**
 * The file layout's version: files of another are never read (and are evicted like any other). What
 * the planes hold is checked apart from it: each file carries the fingerprint of the code that made
 * its level (level-code.ts), and files of other code are not read either.
 */
export const LEVEL_FILE_VERSION = 1;

const MAGIC = 0x4c565256; // "VRVL", little-endian
/** Fixed fields before the header's JSON: magic, version, header bytes, payload bytes, payload CRC-32, JSON bytes, JSON CRC-32. */
const FIXED = 28;
/** The header (fixed fields and JSON) is read in one go; its JSON is a few hundred bytes. */
const HEADER_MAX = 4096;
/** Planes are checksummed a slice at a time, the event loop getting its turn every few ms (as levels are built: paced.ts). */
const CRC_SLICE = 1 << 20;
const CRC_TURN_MS = 3;
/**
 * How often, at most, a renderer counts the directory again (before a write): where several share it,
 * each then sees the others' files and evicts the least recently used of all, so the directory holds
 * at most the budget plus what the others wrote since (docs/renderer.md, "Level files").
 */
export const RESCAN_MS = 60_000;
/** A writer's temporary file older than this is left over from a process that died while writing. */
const STALE_TMP_MS = 10 * 60_000;
const SUFFIX = '.level';
/** Names this code writes (fileName, and its temporary files): nothing else in the directory is touched. */
const OWN_FILE = /^[A-Za-z0-9_-]{40}\.level$/;
const OWN_TMP = /^[A-Za-z0-9_-]{40}\.level\.\d+\.[0-9a-f]{8}\.tmp$/;
/** Levels waiting to be written, at most: under a burst of cold levels the oldest are skipped. */
export const WRITE_QUEUE_MAX = 32;

/**
 * What a level file must be to stand for a level: `id` names the level and the layer files it comes
 * from (the asset store's key with their sizes, mtimes and inodes), the rest is what the asset store
 * expects of it.
 */
export interface LevelFileSpec {
  /** The level's key in the asset store (Layers.key, its arena's key: what eviction names to the backends). */
  key: string;
  id: string;
  width: number;
  height: number;
  shadow: boolean;
  coverage: boolean;
  /** A reduced level's place in the full size; null: the full size. */
  level: LevelGeometry | null;
  /**
   * What the backend adds to levels, as the asset store makes them (level-extras.ts): the planes read
   * back are allocated by it and it adds the rest. A file holds the planes only, so the same file
   * serves levels with any extras.
   */
  extras: LevelExtras;
}

interface Header {
  id: string;
  /** levelCode() of the process that wrote it. */
  code: string;
  width: number;
  height: number;
  shadow: boolean;
  coverage: boolean;
  level: LevelGeometry | null;
}

export interface LevelFileStats {
  /** Levels read from a file instead of being decoded or reduced. */
  hits: number;
  /** Levels looked for and not found (then built, and written). */
  misses: number;
  written: number;
  /** Writes not made: the level left memory before its turn came, or the queue was full (WRITE_QUEUE_MAX). */
  skipped: number;
  evicted: number;
  /** Files refused (wrong version, size or checksum, unreadable) and writes that failed. */
  failed: number;
  files: number;
  bytes: number;
  budget: number;
  /** Levels waiting to be written or being written. */
  pending: number;
}

/** The planes a level file holds, in this order: what the level is made of; the rest is made from them. */
function planesOf(p: PlaneSet): (Uint8Array | Uint16Array)[] {
  return [p.base, p.paint, p.diffuse, p.specular, ...(p.shadow ? [p.shadow] : []), ...(p.coverage ? [p.coverage] : [])];
}

function payloadBytes(width: number, height: number, shadow: boolean, coverage: boolean): number {
  const n = width * height;
  return n * (3 + 1 + 2 + 2) + (shadow ? n : 0) + (coverage ? n : 0);
}

function bytesOf(a: Uint8Array | Uint16Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** CRC-32 of the parts, 1 MB at a time (about 0.2 ms), the event loop's turn every CRC_TURN_MS. */
async function crcSliced(parts: Uint8Array[]): Promise<number> {
  let crc = 0;
  let t0 = performance.now();
  for (const p of parts) {
    for (let i = 0; i < p.length; i += CRC_SLICE) {
      crc = zlib.crc32(p.subarray(i, Math.min(p.length, i + CRC_SLICE)), crc);
      if (performance.now() - t0 >= CRC_TURN_MS) {
        await nextTurn();
        t0 = performance.now();
      }
    }
  }
  return crc;
}

class LevelFileError extends Error {}

/**
 * Built levels kept on local disk (LEVEL_CACHE_DIR), so that a level the layer cache evicted, or
 * that a restarted renderer has never built, is read back in milliseconds instead of decoded from
 * the set's files and reduced level by level (a few hundred ms: docs/renderer.md, "Level files").
 * A level file is its planes as the asset store built them (raw, little-endian) behind a header
 * naming the level and the layer files it was made from, with a CRC-32 of the planes; anything that
 * does not match (another version, set revision, layer file, size, a torn or flipped byte) is not
 * read, it is deleted and the level is built again. Files are written in the background after a
 * level is built (a temporary file renamed into place, so a reader sees a whole file or none) and
 * evicted least recently used beyond the byte budget. A disk that fails never fails a render: the
 * level is built as it would be without.
 */
export class LevelFiles {
  /** Files by name, least recently used first (a use moves one to the end). */
  private index = new Map<string, number>();
  private total = 0;
  /** When the directory was last counted (scan). */
  private scannedAt = 0;
  /** Files waiting to be written or being written, the queue and the one being written. */
  private readonly writing = new Set<string>();
  private readonly queue: { name: string; spec: LevelFileSpec; planes: WeakRef<Uint8Array | Uint16Array>[] }[] = [];
  private current: Promise<void> | null = null;
  private readonly counts = { hits: 0, misses: 0, written: 0, skipped: 0, evicted: 0, failed: 0 };
  private lastWriteWarning = 0;

  private constructor(
    readonly dir: string,
    readonly budget: number,
    private readonly logger: Logger,
    /** levelCode(): files made by other code are other files. */
    readonly code: string,
    private readonly rescanMs: number,
  ) {}

  /**
   * The level files in `dir` (made if missing), those already there counted against `budget` (the
   * most recently modified kept); null, with the reason logged, where the directory cannot be used
   * or the machine is big-endian (the planes are stored as the memory holds them).
   */
  static async open(opts: {
    dir: string;
    budgetBytes: number;
    logger: Logger;
    /** tests: as if another version of the code wrote the files */
    code?: string;
    /** tests: how often the directory is counted again before a write (RESCAN_MS) */
    rescanMs?: number;
  }): Promise<LevelFiles | null> {
    const { dir, logger } = opts;
    if (os.endianness() !== 'LE') {
      logger.warn({ dir }, 'level files off: this machine is big-endian');
      return null;
    }
    if (typeof zlib.crc32 !== 'function') {
      logger.warn({ dir, node: process.version }, 'level files off: this Node.js has no zlib.crc32 (20.15 or newer has)');
      return null;
    }
    const files = new LevelFiles(dir, Math.max(0, opts.budgetBytes), logger, opts.code ?? levelCode(), opts.rescanMs ?? RESCAN_MS);
    try {
      await fsp.mkdir(dir, { recursive: true });
      await fsp.access(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
      await files.scan();
    } catch (e) {
      logger.error({ dir, err: (e as Error).message }, 'level files off: LEVEL_CACHE_DIR is not a directory this process can use');
      return null;
    }
    logger.info({ dir, files: files.index.size, mb: Math.round(files.total / 1048576), budgetMb: Math.round(files.budget / 1048576) }, 'level files');
    return files;
  }

  private async scan(): Promise<void> {
    const found: { name: string; bytes: number; mtime: number }[] = [];
    const now = Date.now();
    const names = (await fsp.readdir(this.dir)).filter((n) => OWN_FILE.test(n) || OWN_TMP.test(n));
    // a directory of thousands of files: their stats a batch at a time, not one after another
    for (let i = 0; i < names.length; i += 64) {
      await Promise.all(
        names.slice(i, i + 64).map(async (name) => {
          const st = await fsp.stat(path.join(this.dir, name)).catch(() => null);
          if (!st?.isFile()) return;
          if (OWN_FILE.test(name)) found.push({ name, bytes: st.size, mtime: st.mtimeMs });
          else if (OWN_TMP.test(name) && now - st.mtimeMs > STALE_TMP_MS) await fsp.rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
        }),
      );
    }
    found.sort((a, b) => a.mtime - b.mtime);
    const index = new Map<string, number>();
    let total = 0;
    for (const f of found) {
      index.set(f.name, f.bytes);
      total += f.bytes;
    }
    this.index = index;
    this.total = total;
    this.scannedAt = Date.now();
    await this.evictOver(this.budget);
  }

  stats(): LevelFileStats {
    return { ...this.counts, files: this.index.size, bytes: this.total, budget: this.budget, pending: this.writing.size };
  }

  private fileName(id: string): string {
    return crypto.createHash('sha256').update(`${LEVEL_FILE_VERSION}\n${this.code}\n${id}`).digest('base64url').slice(0, 40) + SUFFIX;
  }

  /** The level as `spec` asks, read from its file and made ready like a built one; null where there is no good file. */
  async read(spec: LevelFileSpec): Promise<Layers | null> {
    const name = this.fileName(spec.id);
    const file = path.join(this.dir, name);
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.refuse(file, e);
      this.counts.misses++;
      return null;
    }
    let planes: LevelPlanes | null = null;
    let size = 0;
    try {
      ({ size } = await fh.stat());
      const head = new Uint8Array(Math.min(HEADER_MAX, size));
      await readFully(fh, head, 0);
      const { header, headerBytes, payload, crc } = parseHeader(head);
      const want = payloadBytes(spec.width, spec.height, spec.shadow, spec.coverage);
      if (
        header.id !== spec.id ||
        header.code !== this.code ||
        header.width !== spec.width ||
        header.height !== spec.height ||
        header.shadow !== spec.shadow ||
        header.coverage !== spec.coverage ||
        JSON.stringify(header.level) !== JSON.stringify(spec.level) ||
        payload !== want ||
        size !== headerBytes + payload
      ) {
        throw new LevelFileError('the header does not match the level');
      }
      planes = spec.extras.allocatePlanes(spec.key, spec.width, spec.height, { shadow: spec.shadow, coverage: spec.coverage });
      const parts = planesOf(planes).map(bytesOf);
      let at = headerBytes;
      for (const p of parts) {
        await readFully(fh, p, at);
        at += p.length;
      }
      if ((await crcSliced(parts)) >>> 0 !== crc) throw new LevelFileError('the planes do not match their checksum');
    } catch (e) {
      await fh.close().catch(() => undefined);
      this.refuse(file, e);
      this.forget(name);
      await fsp.rm(file, { force: true }).catch(() => undefined);
      this.counts.misses++;
      return null;
    }
    await fh.close().catch(() => undefined);
    this.touch(name, size);
    this.counts.hits++;
    return layersOfPlanes(spec.key, { ...planes, width: spec.width, height: spec.height }, spec.level ?? undefined, spec.extras);
  }

  /**
   * Writes the level `l` (as built for `spec`) in the background, one file at a time. A level waits
   * for its turn weakly held: one the layer cache lets go of meanwhile is collected like any other
   * and skipped, so level files keep in memory at most the one level being written (its arena: about
   * 48 MB at 2400 px) past the cache's budget (docs/renderer.md, "Memory"). A level already waiting,
   * or larger than the whole budget, is not written; the planes are only read (a built level's never
   * change).
   */
  write(spec: LevelFileSpec, l: Layers): void {
    const name = this.fileName(spec.id);
    const payload = payloadBytes(l.width, l.height, l.shadow !== null, l.coverage !== null);
    if (this.writing.has(name)) {
      // built again while its first copy waits (evicted, then asked for): the newest planes are the ones
      // the cache holds now, so the write waits on them; the first copy's may be collected meanwhile
      const waiting = this.queue.find((q) => q.name === name);
      if (waiting) waiting.planes = planesOf(l).map((p) => new WeakRef(p));
      return;
    }
    if (payload + HEADER_MAX > this.budget) {
      this.counts.skipped++;
      return;
    }
    if (this.queue.length >= WRITE_QUEUE_MAX) {
      this.writing.delete(this.queue.shift()!.name);
      this.counts.skipped++;
    }
    this.writing.add(name);
    // the planes, not the Layers object: the cache replaces that with another over the same planes once the level's tables are built
    this.queue.push({ name, spec, planes: planesOf(l).map((p) => new WeakRef(p)) });
    this.pump();
  }

  private pump(): void {
    while (!this.current && this.queue.length > 0) {
      const { name, spec, planes: refs } = this.queue.shift()!;
      const planes = refs.map((r) => r.deref());
      if (planes.some((p) => p === undefined)) {
        this.writing.delete(name);
        this.counts.skipped++;
        continue;
      }
      this.current = this.writeFile(name, spec, planes as (Uint8Array | Uint16Array)[])
        .catch((e: unknown) => {
          this.counts.failed++;
          // a full or read-only disk fails every write: one warning a minute says so
          if (Date.now() - this.lastWriteWarning > 60_000) {
            this.lastWriteWarning = Date.now();
            this.logger.warn({ dir: this.dir, err: (e as Error).message }, 'level file not written; the level is built again when needed');
          }
        })
        .finally(() => {
          this.writing.delete(name);
          this.current = null;
          this.pump();
        });
    }
  }

  private async writeFile(name: string, spec: LevelFileSpec, planes: (Uint8Array | Uint16Array)[]): Promise<void> {
    // not on the turn that built the level (its render is still on its way)
    await nextTurn();
    const parts = planes.map(bytesOf);
    const payload = parts.reduce((s, p) => s + p.length, 0);
    const header: Header = { id: spec.id, code: this.code, width: spec.width, height: spec.height, shadow: spec.shadow, coverage: spec.coverage, level: spec.level };
    if (payload !== payloadBytes(spec.width, spec.height, spec.shadow, spec.coverage)) throw new Error(`${spec.id}: the level's planes are not the size its spec says`);
    const head = buildHeader(header, payload, await crcSliced(parts));
    const bytes = head.length + payload;
    // other renderers on this directory (one volume shared by scaled containers) write and evict too:
    // counting it again now and then keeps the directory, not each renderer's share, within the budget
    if (Date.now() - this.scannedAt >= this.rescanMs) {
      await this.scan().catch((e: unknown) => this.logger.warn({ dir: this.dir, err: (e as Error).message }, 'level files not counted again; going on with the count held'));
    }
    // room first (a file of this name is replaced: its bytes are not the room's), so a full disk is not filled further
    this.forget(name);
    await this.evictOver(this.budget - bytes);
    // made again if it went away meanwhile (a cleanup of the disk)
    await fsp.mkdir(this.dir, { recursive: true });
    const tmp = path.join(this.dir, `${name}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
    try {
      const fh = await fsp.open(tmp, 'w');
      try {
        // a full disk or a file-size limit ends a write short without an error: the bytes written say so
        const { bytesWritten } = await fh.writev([head, ...parts]);
        if (bytesWritten !== bytes) throw new Error(`wrote ${bytesWritten} of ${bytes} bytes`);
      } finally {
        await fh.close();
      }
      await fsp.rename(tmp, path.join(this.dir, name));
    } catch (e) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      throw e;
    }
    this.index.set(name, bytes);
    this.total += bytes;
    this.counts.written++;
  }

  /** Deletes least recently used files until the rest take at most `bytes`. */
  private async evictOver(bytes: number): Promise<void> {
    for (const name of this.index.keys()) {
      if (this.total <= bytes) return;
      this.forget(name);
      this.counts.evicted++;
      await fsp.rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
    }
  }

  private forget(name: string): void {
    const size = this.index.get(name);
    if (size === undefined) return;
    this.index.delete(name);
    this.total -= size;
  }

  /**
   * A file read is the most recently used, here and (by its mtime) for the next scan. One this
   * renderer did not know (another renderer on the directory wrote it since the last scan) is counted from now.
   */
  private touch(name: string, size: number): void {
    this.forget(name);
    this.index.set(name, size);
    this.total += size;
    const now = new Date();
    fsp.utimes(path.join(this.dir, name), now, now).catch(() => undefined);
  }

  private refuse(file: string, e: unknown): void {
    this.counts.failed++;
    this.logger.warn({ file, err: (e as Error).message }, 'level file not used; the level is built again');
  }

  /** Settles once no write is waiting or under way, levels queued meanwhile included (tests, shutdown: bounded there by a timeout). */
  async idle(): Promise<void> {
    while (this.current) await this.current;
  }
}

async function readFully(fh: fsp.FileHandle, into: Uint8Array, position: number): Promise<void> {
  let off = 0;
  while (off < into.length) {
    const { bytesRead } = await fh.read(into, off, into.length - off, position + off);
    if (bytesRead === 0) throw new LevelFileError('the file ends early');
    off += bytesRead;
  }
}

function buildHeader(header: Header, payload: number, crc: number): Uint8Array {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const bytes = FIXED + json.length;
  if (bytes > HEADER_MAX) throw new LevelFileError('the header is too long');
  const head = Buffer.alloc(bytes);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt32LE(LEVEL_FILE_VERSION, 4);
  head.writeUInt32LE(bytes, 8);
  head.writeUInt32LE(payload, 12);
  head.writeUInt32LE(crc >>> 0, 16);
  head.writeUInt32LE(json.length, 20);
  head.writeUInt32LE(zlib.crc32(json) >>> 0, 24);
  json.copy(head, FIXED);
  return head;
}

function parseHeader(head: Uint8Array): { header: Header; headerBytes: number; payload: number; crc: number } {
  if (head.length < FIXED) throw new LevelFileError('the file is shorter than a header');
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.readUInt32LE(0) !== MAGIC) throw new LevelFileError('not a level file');
  if (b.readUInt32LE(4) !== LEVEL_FILE_VERSION) throw new LevelFileError(`level file version ${b.readUInt32LE(4)}, not ${LEVEL_FILE_VERSION}`);
  const headerBytes = b.readUInt32LE(8);
  const jsonBytes = b.readUInt32LE(20);
  if (headerBytes !== FIXED + jsonBytes || headerBytes > head.length) throw new LevelFileError('the header is damaged');
  const json = b.subarray(FIXED, headerBytes);
  if ((zlib.crc32(json) >>> 0) !== b.readUInt32LE(24)) throw new LevelFileError('the header does not match its checksum');
  return { header: JSON.parse(json.toString('utf8')) as Header, headerBytes, payload: b.readUInt32LE(12), crc: b.readUInt32LE(16) };
}
