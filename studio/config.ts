import path from 'node:path';
import { z } from 'zod';
import { APP_ROOT, optionalString, parseConfig, positiveInt, spinFramesDir } from '../shared/config-fields.ts';

/**
 * The studio CLI's environment, read once: where asset sets live (ASSETS_DIR, as the gateway and the
 * renderer read it) and the renderer's caches the pre-bakes fill: spin frames (SPIN_FRAMES_DIR) and levels (LEVEL_CACHE_DIR).
 */
const studioSchema = z
  .object({ ASSETS_DIR: optionalString, SPIN_FRAMES_DIR: optionalString, LEVEL_CACHE_DIR: optionalString, LEVEL_CACHE_MB: positiveInt(4096) })
  .transform((e) => ({
    assetsDir: path.resolve(e.ASSETS_DIR ?? path.join(APP_ROOT, 'assets')),
    spinFramesDir: spinFramesDir(e),
    /** The renderer's level files (LEVEL_CACHE_DIR), which the level pre-bake fills; null: unset. */
    levelCacheDir: e.LEVEL_CACHE_DIR ? path.resolve(e.LEVEL_CACHE_DIR) : null,
    /** Its byte budget in MB, as the renderer's LEVEL_CACHE_MB. */
    levelCacheMb: e.LEVEL_CACHE_MB,
  }));

export type StudioConfig = z.output<typeof studioSchema>;

export function loadStudioConfig(env: NodeJS.ProcessEnv = process.env): StudioConfig {
  return parseConfig(studioSchema, env);
}
