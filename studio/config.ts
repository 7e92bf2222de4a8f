import path from 'node:path';
import { z } from 'zod';
import { APP_ROOT, optionalString, parseConfig } from '../shared/config-fields.ts';

/** The studio CLI's environment, read once: where asset sets live (ASSETS_DIR, as the gateway and the renderer read it). */
const studioSchema = z
  .object({ ASSETS_DIR: optionalString })
  .transform((e) => ({ assetsDir: path.resolve(e.ASSETS_DIR ?? path.join(APP_ROOT, 'assets')) }));

export type StudioConfig = z.output<typeof studioSchema>;

export function loadStudioConfig(env: NodeJS.ProcessEnv = process.env): StudioConfig {
  return parseConfig(studioSchema, env);
}
