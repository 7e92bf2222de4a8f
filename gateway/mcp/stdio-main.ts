import fs from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { createClient } from '../../client/src/index.ts';
import { ConfigError } from '../../shared/config-fields.ts';
import { createLogger } from '../../shared/logger.ts';
import { exitOnStartError } from '../../shared/start-error.ts';
import { loadMcpStdioConfig } from './config.ts';
import { createMcpServer } from './server.ts';

/**
 * `npm run mcp`: the MCP server over stdio for desktop agents, calling a gateway (BASE_URL) over HTTP
 * with one key (API_KEY): each tool call is one /v1 call of that key. stdout carries the protocol
 * only, so the log goes to stderr.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadMcpStdioConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger('mcp', 'info', pino.destination({ dest: 2, sync: true }));
  // a 429 is the agent's to handle (the tool error names it), as over /mcp
  const api = createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, maxRetries: 0 });
  const server = createMcpServer({ api, version: readVersion(), onUnexpected: (err) => logger.warn({ err }, 'MCP tool call failed') });
  const transport = new StdioServerTransport();
  server.server.onclose = () => process.exit(0);
  await server.connect(transport);
  // the agent closing our stdin ends the session (kept-alive connections to the gateway would not)
  process.stdin.once('end', () => process.exit(0));
  logger.info({ baseUrl: config.baseUrl }, 'MCP server on stdio');
}

function readVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

main().catch((err) => exitOnStartError('mcp', err, 'info'));
