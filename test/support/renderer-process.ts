import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A real renderer process (`node --import tsx renderer/main.ts`, cpu backend, one worker) on `port`,
 * resolved once it logs that it listens; its output is kept for the error if it does not start.
 * `env` adds to or overrides the defaults. The caller kills it.
 */
export function startRendererProcess(port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'renderer', 'main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        RENDERER_PORT: String(port),
        RENDERER_HOST: '127.0.0.1',
        RENDERER_METRICS_PORT: 'off',
        RENDER_BACKEND: 'cpu',
        RENDER_WORKERS: '1',
        RENDER_CACHE_MB: '64',
        LOG_LEVEL: 'info', // the "renderer listening" line is the readiness signal
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`renderer on ${port} did not start:\n${out.slice(-2000)}`)), 90_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('"msg":"renderer listening"')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`renderer exited (${code}):\n${out.slice(-2000)}`)));
  });
}
