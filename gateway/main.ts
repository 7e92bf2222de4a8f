import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../shared/config-fields.ts';
import { loadGatewayConfig } from './config.ts';
import { createLogger } from '../shared/logger.ts';
import type { MetricsServer } from '../shared/metrics-server.ts';
import { exitOnStartError } from '../shared/start-error.ts';
import type { LocalRenderer } from './render/local-renderer.ts';

/** LOG_LEVEL once the configuration is read: how much a failed start prints. */
let logLevel = 'info';

/** `npm start`: the whole service in the foreground; a local renderer when RENDERER_ADDR is unset. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  logLevel = config.logLevel;
  const logger = createLogger('gateway', config.logLevel);
  // the service's modules load once the configuration is known good: a bad setting is reported
  // without first loading (and, from a checkout, compiling) the whole service
  const [{ startLocalRenderer }, { createGrpcImageRenderer }, { FINAL_FLUSH_MS, startGateway }, { startMetricsServer }] = await Promise.all([
    import('./render/local-renderer.ts'),
    import('./render/grpc-image-renderer.ts'),
    import('./service.ts'),
    import('../shared/metrics-server.ts'),
  ]);

  let local: LocalRenderer | null = null;
  let rendererAddr = config.rendererAddr;
  if (!rendererAddr) {
    const started = performance.now();
    local = await startLocalRenderer({ env: process.env, logger });
    rendererAddr = local.address;
    // its own lines say how long its backend and warm-up took; this one, the whole wait
    logger.info({ address: rendererAddr, ms: Math.round(performance.now() - started) }, 'started the local renderer');
  }
  const renderer = createGrpcImageRenderer({ addresses: rendererAddr, logger, outageWaitMs: config.rendererOutageWaitMs });
  const gw = await startGateway({ config, logger, renderer });
  let metrics: MetricsServer | null = null;
  if (config.metricsPort !== null) {
    metrics = await startMetricsServer({ registry: gw.metrics, port: config.metricsPort, host: config.metricsHost });
    logger.info({ port: metrics.port, host: config.metricsHost }, 'gateway metrics listening (GET /metrics)');
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // requests in flight get SHUTDOWN_GRACE_MS; the two final usage flushes FINAL_FLUSH_MS each (a
    // stalled database: their unwritten counts are logged, service.ts); the local renderer its own
    // grace; past all, give up
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 2 * FINAL_FLUSH_MS + 10_000);
    force.unref();
    try {
      await gw.close(); // stop accepting, drain, flush usage counts, close the pools
      renderer.close();
      await local?.stop();
      await metrics?.close();
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // printed once the signals are handled: whoever reads the welcome (a person, a script, a test) may
  // stop the process the next instant
  const url = gw.url.replace('127.0.0.1', 'localhost');
  printWelcome(url, gw.adminToken, gw.generatedAdminToken, gw.demoKey, gw.demoOrgExists, gw.exampleImagePath, gw.demoSignIn, adminCommand(url, config.dataDir));
  gw.credentialsShown();
}

/**
 * The admin CLI as it must be typed to reach this gateway: the CLI defaults to http://localhost:8080
 * and ./.data, so a gateway started elsewhere (PORT, DATA_DIR) is named. From a checkout that is
 * `npm run admin --`; the compiled gateway (the image, which has no npm) names its own compiled CLI.
 */
function adminCommand(url: string, dataDir: string): string {
  const env: string[] = [];
  if (url !== 'http://localhost:8080') env.push(`ADMIN_URL=${url}`);
  if (path.resolve(dataDir) !== path.resolve('.data')) env.push(`DATA_DIR=${quote(dataDir)}`);
  const self = fileURLToPath(import.meta.url);
  const cli = self.endsWith('.js') ? `node ${quote(path.relative(process.cwd(), path.join(path.dirname(self), 'cli', 'admin.js')) || 'admin.js')}` : 'npm run admin --';
  return [...env, cli].join(' ');
}

/** A word as a POSIX shell reads it back. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function printWelcome(
  url: string,
  adminToken: string,
  newAdmin: boolean,
  demoKey: string | null,
  demoOrgExists: boolean,
  example: string | null,
  demoSignIn: { url: string; expiresAt: string; memberId: string } | null,
  admin: string,
): void {
  const lines = ['', `Vehicle image service is up at ${url}`];
  if (newAdmin) lines.push(`Admin token (generated once, kept in DATA_DIR/secrets.json): ${adminToken}`);
  if (demoKey) {
    lines.push(
      `Demo API key (shown only now): ${demoKey}`,
      '',
      'Try:',
      `  curl -s -H 'x-api-key: ${demoKey}' ${url}/v1/makes`,
      `  curl -s -H 'x-api-key: ${demoKey}' '${url}/v1/search?q=2024'`,
    );
    if (example) {
      lines.push(
        'A first image (the JSON carries a signed image_url; download it):',
        `  curl -s -H 'x-api-key: ${demoKey}' '${url}${example}?color=red&plate=AB%20123&format=png' | tee /tmp/image.json`,
        `  curl -s -o car.png "$(node -p 'require("/tmp/image.json").image_url')"`,
      );
    }
    if (demoSignIn) {
      lines.push(
        '',
        `Dashboard (keys, usage, playground), as the demo organisation's member demo@example.com:`,
        `  ${demoSignIn.url}`,
        `  (single use, until ${demoSignIn.expiresAt}; a new link: ${admin} members sign-in-link ${demoSignIn.memberId})`,
      );
    }
  } else {
    lines.push(
      demoOrgExists ? 'The demo key was printed at the first start. A new one:' : 'An organisation, its contract and an API key:',
      `  ${admin} quickstart "My org"      # organisation + contract + key (see README)`,
    );
  }
  lines.push(`API documentation: ${url}/docs`, '');
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => exitOnStartError('gateway', err, logLevel));
