import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../shared/logger.ts';
import type { BakeJob, ChildMessage, ParentMessage } from './bake-messages.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Compiled (the image runs `node renderer/main.js`) or from source under tsx: the child runs as the renderer does. */
const COMPILED = import.meta.url.endsWith('.js');

/** A bake that has not answered by then is taken as hung: the child is killed and restarted for the next job. */
export const BAKE_TIMEOUT_MS = 180_000;
/** After the child could not start (no GL), jobs fail at once for this long instead of forking again each time. */
const START_FAILURE_BACKOFF_MS = 30_000;

/** Why a job failed: `child` when the process died or could not start (the caller answers unavailable). */
export class BakeFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'job' | 'child',
  ) {
    super(message);
    this.name = 'BakeFailure';
  }
}

interface Running {
  job: BakeJob;
  resolve: (r: { ms: number; loadMs: number }) => void;
  reject: (e: BakeFailure) => void;
  timer: NodeJS.Timeout;
}

/**
 * The frame-baker child process (frame-baker-process.ts), forked when the first job comes with the
 * runtime the renderer runs under, and again after it died; one job at a time (the caller's queue
 * makes sure). A job in a child that dies fails, with the reason logged.
 */
export class FrameBakerChild {
  private child: ChildProcess | null = null;
  private ready: Promise<ChildProcess> | null = null;
  private running: Running | null = null;
  private closed = false;
  private startFailedAt = -Infinity;
  private startFailure = '';
  /** The GL renderer string the child reported (logs, gpu:check). */
  glDescription: string | null = null;

  constructor(
    private readonly opts: {
      logger: Logger;
      env?: NodeJS.ProcessEnv;
      timeoutMs?: number;
      /** Tests: the module the child runs (default frame-baker-process). */
      entry?: string;
    },
  ) {}

  /** The child's process id while one runs (tests look for orphans). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async bake(job: BakeJob): Promise<{ ms: number; loadMs: number }> {
    if (this.closed) throw new BakeFailure('the frame baker is closed', 'child');
    if (this.running) throw new Error('FrameBakerChild: one job at a time');
    const child = await this.start();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.opts.logger.error({ set: job.setId, yaw: job.yaw, width: job.width, ms: this.opts.timeoutMs ?? BAKE_TIMEOUT_MS }, 'spin frame bake hung; killing the frame baker');
        child.kill('SIGKILL');
      }, this.opts.timeoutMs ?? BAKE_TIMEOUT_MS);
      timer.unref();
      this.running = { job, resolve, reject, timer };
      child.send({ type: 'bake', job } satisfies ParentMessage);
    });
  }

  private start(): Promise<ChildProcess> {
    if (this.ready) return this.ready;
    if (Date.now() - this.startFailedAt < START_FAILURE_BACKOFF_MS) {
      return Promise.reject(new BakeFailure(`the frame baker could not start: ${this.startFailure}`, 'child'));
    }
    const entry = this.opts.entry ?? path.join(HERE, COMPILED ? 'frame-baker-process.js' : 'frame-baker-process.ts');
    const child = fork(entry, [], {
      execArgv: COMPILED ? [] : ['--import', 'tsx'],
      env: this.opts.env ?? process.env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    const ready = new Promise<ChildProcess>((resolve, reject) => {
      // a child that never says ready (a GL driver hanging in its start) would hold the bake queue's one
      // slot for good: it is killed like a hung bake, and the exit below fails the job
      const startTimer = setTimeout(() => {
        this.opts.logger.error({ pid: child.pid, ms: this.opts.timeoutMs ?? BAKE_TIMEOUT_MS }, 'spin frame baker did not start in time; killing it');
        child.kill('SIGKILL');
      }, this.opts.timeoutMs ?? BAKE_TIMEOUT_MS);
      startTimer.unref();
      const onMessage = (m: ChildMessage) => {
        if (m.type === 'ready') {
          clearTimeout(startTimer);
          this.glDescription = m.gl;
          this.opts.logger.info({ pid: child.pid, gl: m.gl }, 'spin frame baker started');
          resolve(child);
        } else if (m.type === 'fatal') {
          clearTimeout(startTimer);
          this.startFailedAt = Date.now();
          this.startFailure = m.message;
          this.opts.logger.error({ reason: m.message }, 'spin frame baker could not start; spin frames cannot be baked');
          reject(new BakeFailure(`the frame baker could not start: ${m.message}`, 'child'));
        } else if (m.type === 'done' || m.type === 'failed') {
          const r = this.running;
          if (!r || r.job.id !== m.id) return;
          this.running = null;
          clearTimeout(r.timer);
          if (m.type === 'done') r.resolve({ ms: m.ms, loadMs: m.loadMs });
          else r.reject(new BakeFailure(m.message, 'job'));
        }
      };
      child.on('message', onMessage);
      child.once('error', (e) => {
        this.opts.logger.error({ err: e }, 'spin frame baker could not be started');
        reject(new BakeFailure(`the frame baker could not start: ${e.message}`, 'child'));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(startTimer);
        if (this.child === child) {
          this.child = null;
          this.ready = null;
        }
        reject(new BakeFailure(`the frame baker exited (${signal ?? code}) before it was ready`, 'child'));
        const r = this.running;
        if (r) {
          this.running = null;
          clearTimeout(r.timer);
          if (!this.closed) {
            this.opts.logger.error({ code, signal, set: r.job.setId, yaw: r.job.yaw, width: r.job.width }, 'spin frame baker died during a bake; it starts again with the next one');
          }
          r.reject(new BakeFailure(`the frame baker exited (${signal ?? code}) during the bake`, 'child'));
        } else if (!this.closed) {
          this.opts.logger.warn({ code, signal }, 'spin frame baker exited; it starts again with the next bake');
        }
      });
    });
    this.ready = ready;
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    return ready;
  }

  /** Ends the child now: a bake in it is abandoned (the frame cache only ever holds whole frames). */
  async close(): Promise<void> {
    this.closed = true;
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => c.kill('SIGKILL'), 2000);
      c.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      c.kill('SIGTERM');
    });
  }
}
