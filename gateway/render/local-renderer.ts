import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../shared/logger.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Compiled (the container image runs `node gateway/main.js`) or from source under tsx (`npm start`). */
const COMPILED = import.meta.url.endsWith('.js');

export interface LocalRenderer {
  address: string;
  /** The child's process id (tests read its environment). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** The renderer's own settings (renderer/config.ts, loadRendererConfig) and what its libraries read. */
const RENDERER_VARS = new Set([
  'RENDER_BACKEND', 'ASSETS_DIR', 'RENDER_CACHE_MB', 'RENDER_WORKERS', 'RENDER_QUEUE_MAX', 'LEVEL_CACHE_DIR', 'LEVEL_CACHE_MB', 'RENDERER_GRACE_MS', 'RENDER_WARMUP',
  'SPIN_FRAMES_DIR', 'SPIN_FRAME_SUPERSAMPLE', 'SPIN_QUEUE_MAX',
  'RENDERER_METRICS_PORT', 'RENDERER_METRICS_HOST', 'LOG_LEVEL',
  // the process itself: paths, locale, time zone, temp dirs, Node's own options
  'PATH', 'HOME', 'USER', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP', 'NODE_ENV', 'NODE_OPTIONS', 'NODE_PATH',
  'UV_THREADPOOL_SIZE', 'LD_LIBRARY_PATH', 'DISPLAY', 'XDG_RUNTIME_DIR', 'CUDA_VISIBLE_DEVICES',
]);
/** Graphics and image libraries: ANGLE, the Vulkan loader, Mesa, libvips (sharp), the NVIDIA driver. */
const RENDERER_PREFIXES = ['LC_', 'ANGLE_', 'VK_', 'MESA_', 'LIBGL_', 'GALLIUM_', 'LP_', 'VIPS_', 'SHARP_', 'NVIDIA_', '__GL', 'TSX_'];

/**
 * The environment the local renderer is started with: only the variables it (or its native libraries)
 * reads. The gateway's secrets (ADMIN_TOKEN, IMAGE_SIGNING_KEYS, API_KEY_HASH_SECRETS, DATABASE_URL,
 * REDIS_URL, ...) never reach the process that runs the native image and graphics code.
 */
export function rendererEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (RENDERER_VARS.has(k) || RENDERER_PREFIXES.some((p) => k.startsWith(p))) out[k] = v;
  }
  return out;
}

/**
 * Embedded mode: the renderer runs as a child process on a loopback port it picks itself, so a
 * crash in native graphics code cannot take the gateway down. It is restarted if it dies.
 */
export async function startLocalRenderer(opts: { env: NodeJS.ProcessEnv; logger: Logger; timeoutMs?: number }): Promise<LocalRenderer> {
  let child: ChildProcess | null = null;
  let stopping = false;
  let port = 0;

  const spawn = () =>
    new Promise<number>((resolve, reject) => {
      const c = fork(path.join(ROOT, 'renderer', COMPILED ? 'main.js' : 'main.ts'), [], {
        cwd: ROOT,
        execArgv: COMPILED ? [] : ['--import', 'tsx'],
        env: {
          ...rendererEnv(opts.env),
          RENDERER_PORT: String(port),
          RENDERER_HOST: '127.0.0.1',
          // its metrics on a free loopback port unless asked for (the port is logged)
          RENDERER_METRICS_PORT: opts.env.RENDERER_METRICS_PORT ?? '0',
          RENDERER_METRICS_HOST: opts.env.RENDERER_METRICS_HOST ?? '127.0.0.1',
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child = c;
      const timer = setTimeout(() => reject(new Error('the local renderer did not start in time')), opts.timeoutMs ?? 60_000);
      c.on('message', (m: unknown) => {
        const msg = m as { type?: string; port?: number };
        if (msg?.type === 'ready' && typeof msg.port === 'number') {
          clearTimeout(timer);
          resolve(msg.port);
        }
      });
      c.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (stopping) return;
        opts.logger.error({ code, signal }, 'local renderer exited; restarting');
        reject(new Error(`renderer exited (${code ?? signal})`));
        setTimeout(() => {
          if (!stopping) spawn().catch((err) => opts.logger.error({ err }, 'local renderer restart failed'));
        }, 1000);
      });
    });

  port = await spawn();
  return {
    address: `127.0.0.1:${port}`,
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
    async stop() {
      stopping = true;
      const c = child as ChildProcess | null;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
        c.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        c.kill('SIGTERM');
      });
    },
  };
}
