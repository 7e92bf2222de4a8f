import path from 'node:path';
import { z } from 'zod';
import { emptyAsUndefined, optionalString, parseConfig, port, serverUrl } from '../../shared/config-fields.ts';

/**
 * The admin CLI's environment, read once: the gateway to talk to (ADMIN_URL, else localhost on the
 * gateway's PORT) and its token (ADMIN_TOKEN, else the one the gateway generated into DATA_DIR).
 */
const adminCliSchema = z
  .object({
    ADMIN_URL: serverUrl('gateway', ['http:', 'https:']),
    PORT: port(8080),
    ADMIN_TOKEN: optionalString,
    DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.data')),
  })
  .transform((e) => ({
    url: (e.ADMIN_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    token: e.ADMIN_TOKEN ?? null,
    /** Where a token the gateway generated is kept (DATA_DIR/secrets.json). */
    secretsFile: path.join(path.resolve(e.DATA_DIR), 'secrets.json'),
  }));

export type AdminCliConfig = z.output<typeof adminCliSchema>;

export function loadAdminCliConfig(env: NodeJS.ProcessEnv = process.env): AdminCliConfig {
  return parseConfig(adminCliSchema, env);
}
