import net from 'node:net';

/** A TCP port free on 127.0.0.1 right now (for a child process that needs its port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Resolves once 127.0.0.1:`port` accepts connections; throws `what` did not start after `timeoutMs`. */
export async function waitForPort(port: number, what: string, timeoutMs: number, intervalMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (Date.now() > end) throw new Error(`${what} did not start (nothing on port ${port} after ${timeoutMs} ms)`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
