import { ConfigError } from '../shared/config-fields.ts';
import { loadGatewayConfig } from './config.ts';
import { createLogger } from '../shared/logger.ts';
import { openDatabase } from './db/open.ts';

/**
 * `node gateway/migrate-main.js` (the Kubernetes migration Job, compose's `migrate` service): applies
 * the numbered migrations to DATABASE_URL under the advisory lock and exits 0. Gateways also migrate
 * at start; running this first lets a rollout wait for the schema instead of racing it.
 */
async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger('migrate', config.logLevel);
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL: required for the migration job');
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: null, timeouts: { connectTimeoutMs: config.databaseConnectTimeoutMs } });
  const rows = await db.query<{ version: number }>('SELECT max(version)::int AS version FROM schema_migrations').catch(() => []);
  logger.info({ version: rows[0]?.version ?? null }, 'migrations applied');
  await db.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : `migration failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
