import type { ChildProcess } from 'node:child_process';

/**
 * Waits until a child process's output (stdout and stderr by default) matches `re`; rejects with the
 * output's tail when `ms` pass or the process exits first. Its listeners go once it settles, so
 * other readers of the same streams are not disturbed.
 */
export function waitForOutput(
  child: ChildProcess,
  re: RegExp,
  ms: number,
  streams: ('stdout' | 'stderr')[] = ['stdout', 'stderr'],
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const settle = () => {
      clearTimeout(timer);
      for (const s of streams) child[s]!.off('data', on);
      child.off('exit', onExit);
    };
    const on = (d: Buffer) => {
      text += d.toString();
      const m = re.exec(text);
      if (m) {
        settle();
        resolve(m);
      }
    };
    const onExit = (code: number | null) => {
      settle();
      reject(new Error(`exited (${code}) before ${re}; output:\n${text.slice(-3000)}`));
    };
    const timer = setTimeout(() => {
      settle();
      reject(new Error(`no ${re} within ${ms} ms; output:\n${text.slice(-3000)}`));
    }, ms);
    for (const s of streams) child[s]!.on('data', on);
    child.once('exit', onExit);
  });
}

/** The child's exit code and signal, once it has exited (at once if it already has); rejects after `ms`. */
export function exited(child: ChildProcess, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    const timer = setTimeout(() => reject(new Error(`did not exit within ${ms} ms`)), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}
