import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The real renderer as a child process on a free loopback port (renderer/main.ts reports it when
 * forked): the studio talks to it over gRPC like the gateway does, and imports none of its code.
 */
export async function startRendererChild(
  env: NodeJS.ProcessEnv,
  opts: { timeoutMs?: number; metrics?: boolean } = {},
): Promise<{ address: string; metricsPort: number | null; stop(): Promise<void> }> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const child = fork(path.join(ROOT, 'renderer', 'main.ts'), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...env, RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDERER_METRICS_PORT: opts.metrics ? '0' : 'off', RENDERER_METRICS_HOST: '127.0.0.1', LOG_LEVEL: env.LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; metricsPort: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the renderer did not start in time'));
    }, timeoutMs);
    child.on('message', (m: unknown) => {
      const msg = m as { type?: string; port?: number; metricsPort?: number | null };
      if (msg?.type === 'ready' && typeof msg.port === 'number') {
        clearTimeout(timer);
        resolve({ port: msg.port, metricsPort: msg.metricsPort ?? null });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the renderer exited (${code ?? signal})`));
    });
  });
  return {
    address: `127.0.0.1:${ready.port}`,
    metricsPort: ready.metricsPort,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
