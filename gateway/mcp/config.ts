import { ConfigError } from '../../shared/config-fields.ts';
import { isWellFormedApiKey } from '../auth/api-key-format.ts';

/** `npm run mcp`: the gateway to call and the key to call it with. */
export interface McpStdioConfig {
  /** The gateway's origin (and path prefix, if any), without a trailing slash. */
  baseUrl: string;
  apiKey: string;
}

/**
 * Read once at start: a mistyped URL or key stops the server with the variable's name before an agent
 * connects, instead of failing every tool call later.
 */
export function loadMcpStdioConfig(env: NodeJS.ProcessEnv = process.env): McpStdioConfig {
  const problems: string[] = [];
  const rawUrl = env.BASE_URL?.trim() ?? '';
  let baseUrl = '';
  if (!rawUrl) problems.push('BASE_URL: required, the gateway to call (e.g. http://localhost:8080)');
  else {
    let url: URL | null = null;
    try {
      url = new URL(rawUrl);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) problems.push('BASE_URL: must be an absolute http: or https: URL');
    else if (url.search || url.hash) problems.push('BASE_URL: must have no query or fragment');
    else if (/\/v1\/?$/.test(url.pathname)) problems.push('BASE_URL: the gateway itself, without /v1');
    else baseUrl = url.href.replace(/\/+$/, '');
  }
  const apiKey = env.API_KEY?.trim() ?? '';
  if (!apiKey) problems.push('API_KEY: required, an API key of the organisation (svc_live_…)');
  else if (!isWellFormedApiKey(apiKey)) problems.push('API_KEY: not an API key (svc_live_ and 30 characters, checksum included); mistyped?');
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return { baseUrl, apiKey };
}
