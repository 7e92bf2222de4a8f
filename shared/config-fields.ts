import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseOriginList } from './origins.ts';

/**
 * What every process's configuration is made of: each process reads its environment once, at start,
 * through one zod schema of its own (gateway/config.ts, renderer/config.ts) built from these fields, so
 * that a typo fails the start with a message naming the variable.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The application root (the checkout, or dist/ when compiled): its assets/ is the default ASSETS_DIR of the gateway. */
export const APP_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const emptyAsUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
export const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
export const PORT_MESSAGE = 'must be a port number from 0 to 65535 (0: any free port)';
export const portNumber = () => z.coerce.number({ error: PORT_MESSAGE }).int({ error: PORT_MESSAGE }).min(0, { error: PORT_MESSAGE }).max(65535, { error: PORT_MESSAGE });
export const port = (def: number) => z.preprocess(emptyAsUndefined, portNumber().default(def));
/** A port, 0 for a free one, or `off` (null): the internal Prometheus listener. */
export const metricsPort = (def: number) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .union([z.literal('off').transform(() => null), portNumber()], { error: `${PORT_MESSAGE}, or off` })
      .default(def),
  );
/** The longest delay a Node timer takes (2^31 − 1 ms): a longer one fires at once. */
export const TIMER_MAX = 2_147_483_647;
/** A whole number from 1 to `max`, in plain words when it is not (a bare NaN or ">=1" helps nobody). */
export const positiveInt = (def: number, max = TIMER_MAX) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(max, { error: `must be at most ${max}` })
      .default(def),
  );
/** Grace periods: an hour is far past any sensible drain, and keeps their sums with the flushes a valid timer. */
export const GRACE_MAX_MS = 3_600_000;

/** A URL of one of `protocols` with a host (a typo such as `redis//host` is not taken for a host name). */
export const serverUrl = (what: string, protocols: readonly string[]) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((s) => {
        try {
          const u = new URL(s);
          return protocols.includes(u.protocol) && (u.hostname !== '' || u.searchParams.has('host'));
        } catch {
          return false;
        }
      }, `must be a ${what} URL (${protocols.map((p) => `${p}//…`).join(' or ')}) with a host and a numeric port if any`)
      .optional(),
  );

/**
 * gRPC targets, comma separated: `host:port` (a name as containers and Compose write them, IPv4, or
 * [IPv6] with a zone id), or a `dns:`, `ipv4:`, `ipv6:` or `unix:` target as grpc-js takes them.
 */
const TARGET_RE = /^(?:(?:dns|ipv4|ipv6|unix|unix-abstract):\S+|[A-Za-z0-9._-]+:(\d{1,5})|\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]:(\d{1,5}))$/;
function isGrpcTarget(t: string): boolean {
  const m = TARGET_RE.exec(t.trim());
  if (!m) return false;
  const port = m[1] ?? m[2];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}
export const grpcTargets = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    // empty entries (a trailing comma) are skipped, as the client's parseAddresses skips them
    .refine((s) => {
      const targets = s.split(',').filter((t) => t.trim() !== '');
      return targets.length > 0 && targets.every(isGrpcTarget);
    }, 'must be host:port[,host:port…] (or a dns:, ipv4:, ipv6: or unix: target)')
    .optional(),
);

export const RENDER_BACKENDS = ['auto', 'gl', 'cpu'] as const;
export type RenderBackendChoice = (typeof RENDER_BACKENDS)[number];

export const logLevel = z.preprocess(
  emptyAsUndefined,
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
);

/**
 * Secrets with ids, `id:secret[,id:secret…]`; the first signs, all verify (rotation). Secrets are
 * base64url or hex of at least 32 bytes, or raw text of at least 32 characters.
 */
export interface KeyedSecret {
  id: string;
  secret: Buffer;
}

export function parseKeyedSecrets(name: string, raw: string): KeyedSecret[] {
  const out: KeyedSecret[] = [];
  for (const part of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const idx = part.indexOf(':');
    if (idx <= 0) throw new ConfigError(`${name}: each entry must be id:secret`);
    const id = part.slice(0, idx);
    const text = part.slice(idx + 1);
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(id)) throw new ConfigError(`${name}: invalid key id "${id}"`);
    const secret = decodeSecret(text);
    if (secret.length < 32) {
      throw new ConfigError(`${name}: secret "${id}" is shorter than 32 bytes`);
    }
    out.push({ id, secret });
  }
  if (out.length === 0) throw new ConfigError(`${name}: no secrets given`);
  return out;
}

function decodeSecret(text: string): Buffer {
  if (/^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0 && text.length >= 64) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9_-]+={0,2}$/.test(text) && text.length >= 43) return Buffer.from(text, 'base64url');
  return Buffer.from(text, 'utf8');
}

function fail(err: z.ZodError): never {
  const lines = err.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
}


/**
 * The spin frame cache's folder (docs/spins.md), one rule for the renderer, which bakes into it, and the
 * studio's pre-bake, which fills it: SPIN_FRAMES_DIR, else beside the level files (LEVEL_CACHE_DIR), else
 * in the temporary directory.
 */
export function spinFramesDir(e: { SPIN_FRAMES_DIR?: string; LEVEL_CACHE_DIR?: string }): string {
  if (e.SPIN_FRAMES_DIR) return path.resolve(e.SPIN_FRAMES_DIR);
  if (e.LEVEL_CACHE_DIR) return path.resolve(e.LEVEL_CACHE_DIR, 'spin-frames');
  return path.join(os.tmpdir(), 'vehicle-spin-frames');
}

/** Parses the environment with a process's schema: its typed configuration, or a ConfigError naming every bad variable. */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) fail(parsed.error);
  return parsed.data;
}
