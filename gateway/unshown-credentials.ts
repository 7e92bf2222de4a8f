import fs from 'node:fs';
import path from 'node:path';

/**
 * Credentials made at a first start that the operator has not been shown yet: the generated admin
 * token and the demo organisation's key (only its hash is in the database). They are printed once,
 * after the gateway listens; a start that fails before that (the port taken, the metrics port taken)
 * would otherwise lose the demo key for good and never print the admin token. So they wait here, in
 * DATA_DIR/unshown-credentials.json (mode 0600, beside secrets.json, which holds the admin token
 * anyway) until the welcome text has been written, and the next start prints them if it has not.
 */
export interface UnshownCredentials {
  adminToken?: boolean;
  demo?: { key: string; memberId: string };
}

const fileOf = (dataDir: string) => path.join(dataDir, 'unshown-credentials.json');

export function readUnshown(dataDir: string): UnshownCredentials {
  try {
    return JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as UnshownCredentials;
  } catch {
    return {};
  }
}

/** Adds to what waits to be shown. */
export function rememberUnshown(dataDir: string, add: UnshownCredentials): void {
  const next = { ...readUnshown(dataDir), ...add };
  const file = fileOf(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(next, null, 2), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The welcome text was written: nothing waits any more. */
export function forgetUnshown(dataDir: string): void {
  fs.rmSync(fileOf(dataDir), { force: true });
}
