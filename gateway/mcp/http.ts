import type { IncomingMessage } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Router } from 'express';
import { createClient } from '../../client/src/index.ts';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import { readBody, type BodyLimits } from '../http/body.ts';
import { createMcpServer } from './server.ts';

/** An MCP message is a few hundred bytes; an initialize with a client's capabilities a few KB. */
export const MCP_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, stateless (each POST stands alone, so
 * any gateway instance answers it; GET and DELETE, which only sessions use, answer 405).
 *
 * The caller's key (`x-api-key`, or `Authorization: Bearer`) is not checked here: each tool call is a
 * /v1 request with that key to this very gateway, over loopback, so /v1's gate (key, ban, contract,
 * limits) and its counting are the only ones, and a key revoked between two tool calls fails the
 * second with the API's own 401 as a tool error. Listing the tools calls nothing and is not counted.
 */
export function mcpRoutes(deps: { version: string; body: Pick<BodyLimits, 'maxRatio' | 'timeoutMs'> }): Router {
  const router = express.Router();
  const limits: BodyLimits = { ...deps.body, limitBytes: MCP_BODY_LIMIT_BYTES };
  router.post('/mcp', async (req, res) => {
    const key = callerKey(req);
    if (key === undefined) throw new ServiceError('unauthorized', MESSAGES.missingKey);
    const raw = await readBody(req, limits);
    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ServiceError('bad_request', 'The request body is not valid JSON');
    }
    res.setHeader('Cache-Control', 'no-store'); // the answers are the key's own, like /v1's
    const requestId = String(res.getHeader('X-Request-Id') ?? '');
    const api = createClient({
      baseUrl: selfUrl(req),
      apiKey: key,
      // a 429 is the agent's to handle (the tool error names it); waiting here would hold the POST
      maxRetries: 0,
      // the /v1 request's log line carries the MCP request's id
      fetch: (input, init) => {
        const request = new Request(input, init);
        if (requestId) request.headers.set('x-request-id', requestId);
        return fetch(request);
      },
    });
    const server = createMcpServer({ api, version: deps.version, onUnexpected: (err) => req.log.warn({ err }, 'MCP tool call failed') });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  });
  return router;
}

/** The key as /v1 reads it; MCP clients that only know bearer tokens send it as one. */
function callerKey(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key !== undefined) return key;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

/** This gateway, at the address the request came in on: it is listening there, whatever HOST is. */
function selfUrl(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket;
  if (!localAddress || !localPort) throw new ServiceError('unavailable', MESSAGES.unavailable);
  const host = localAddress.includes(':') ? `[${localAddress.replace(/%.*$/, '')}]` : localAddress;
  return `http://${host}:${localPort}`;
}
