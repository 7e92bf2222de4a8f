import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { VehicleImageClient } from '../../client/src/index.ts';
import { registerTools } from './tools.ts';

export const MCP_SERVER_NAME = 'vehicle-image-service';

const INSTRUCTIONS =
  'Studio pictures of vehicles. Walk the catalog list_makes › list_models › list_years › get_vehicle, or search_vehicles; ' +
  'then render_image for one of the vehicle\'s views and download its image_url. Every tool call is one counted API call ' +
  "against the key's monthly quota and per-minute limit (get_usage shows them). A failed call answers {error, message} " +
  'with the API\'s error code (unauthorized, forbidden, not_found, bad_request, rate_limited, quota_exceeded, …).';

/** An MCP server whose tools call the API with `api` (bound to one key); both transports build theirs here. */
export function createMcpServer(opts: { api: VehicleImageClient; version: string; onUnexpected: (err: unknown) => void }): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: opts.version }, { instructions: INSTRUCTIONS });
  registerTools(server, opts.api, opts.onUnexpected);
  return server;
}
