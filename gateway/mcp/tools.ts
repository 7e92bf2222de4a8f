import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiError, type VehicleImageClient } from '../../client/src/index.ts';
import { ERROR_CODES, MESSAGES, type ErrorCode } from '../../shared/errors.ts';
import { ASPECTS, FRAMINGS, MARGIN_DEFAULT, MARGIN_MAX, MARGIN_MIN } from '../../shared/framing.ts';
import { BACKGROUNDS, FORMATS } from '../../shared/render-options.ts';
import { SPIN_FRAME_COUNTS, SPIN_FRAMES_DEFAULT, SPIN_WIDTH_DEFAULT, SPIN_WIDTH_MAX, SPIN_WIDTH_MIN } from '../../shared/spin.ts';
import { SEGMENT_RE } from '../http/path-params.ts';
import { VIEW_IDS, type ViewId } from '../../shared/views.ts';

/**
 * The MCP tools, one /v1 call each through the typed client. The client is bound to the caller's key
 * and points at a gateway (this one over loopback for /mcp, BASE_URL for stdio), so the key, ban,
 * contract, limit and counting rules are /v1's own and stay in one place; the schemas here only give
 * the arguments their types, every other rule of a value (slugs, plate text, width) is the API's.
 */
export function registerTools(server: McpServer, api: VehicleImageClient, onUnexpected: (err: unknown) => void): void {
  const answer = (call: Promise<unknown>) => toolAnswer(call, onUnexpected);
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  // one path segment of the slug alphabet: never `..` or a `/`, so a tool reaches only its own /v1 route
  const slug = (what: string) => z.string().max(100).regex(SEGMENT_RE).describe(`${what} slug, as the catalog lists it`);
  const make = slug('The make');
  const model = slug('The model');
  const year = z.number().int().describe('The model year');
  const variant = slug('The variant').optional().describe('The variant slug, when the year has several vehicles');
  // the picture options the image and spin calls share beyond colour, shadow, plate, format and width
  const picture = {
    background: z.enum(BACKGROUNDS).optional().describe('studio (default) or transparent (webp and png only)'),
    framing: z.enum(FRAMINGS).optional().describe('studio (default: the whole studio shot) or fit (the vehicle box fills the frame up to the margin, its ground line on the bottom margin)'),
    margin: z.number().int().optional().describe(`Percent of the output around the vehicle with fit, ${MARGIN_MIN}..${MARGIN_MAX} (default ${MARGIN_DEFAULT})`),
    aspect: z.enum(ASPECTS).optional().describe('The output\'s aspect (default 16:9); the height follows from the width'),
  };

  server.registerTool(
    'list_makes',
    { title: 'List makes', description: 'The makes of the catalog visible to this key (GET /v1/makes).', annotations: readOnly },
    () => answer(api.makes()),
  );
  server.registerTool(
    'list_models',
    { title: 'List models', description: 'The models of a make (GET /v1/makes/{make}/models).', inputSchema: { make }, annotations: readOnly },
    (a) => answer(api.models(a.make)),
  );
  server.registerTool(
    'list_years',
    { title: 'List years', description: 'The model years of a model (GET /v1/makes/{make}/models/{model}).', inputSchema: { make, model }, annotations: readOnly },
    (a) => answer(api.years(a.make, a.model)),
  );
  server.registerTool(
    'get_vehicle',
    {
      title: 'Get a vehicle',
      description:
        'A vehicle and its published views; without `variant`, a year of several vehicles answers its variant choices instead ' +
        '(GET /v1/makes/{make}/models/{model}/{year}[/{variant}]).',
      inputSchema: { make, model, year, variant },
      annotations: readOnly,
    },
    (a) => answer(a.variant === undefined ? api.year(a.make, a.model, a.year) : api.variant(a.make, a.model, a.year, a.variant)),
  );
  server.registerTool(
    'search_vehicles',
    {
      title: 'Search vehicles',
      description: 'Prefix search over make, model, variant and year, e.g. "aurelia vento 2024" (GET /v1/search).',
      inputSchema: { q: z.string().describe('Search words') },
      annotations: readOnly,
    },
    (a) => answer(api.search(a.q)),
  );
  server.registerTool(
    'render_image',
    {
      title: 'Render an image',
      description:
        'A studio picture of one view of a vehicle: the image call\'s JSON answer, with a signed `image_url` to download ' +
        '(not counted) and `warnings` (GET /v1/makes/{make}/models/{model}/{year}[/{variant}]/{view}).',
      inputSchema: {
        make,
        model,
        year,
        variant,
        view: z.enum(VIEW_IDS as [ViewId, ...ViewId[]]).describe('One of the nine studio views (list_views)'),
        color: z.string().optional().describe('A colour name (list_colors) or #rrggbb'),
        shadow: z.boolean().optional().describe('Studio shadow (default true)'),
        plate: z.string().optional().describe('Licence-plate text, 1 to 12 characters'),
        format: z.enum(FORMATS).optional().describe('Image format (default webp); the contract names those allowed'),
        width: z.number().int().optional().describe('Width in pixels, clamped to 200..2400 (default 1600)'),
        ...picture,
      },
      annotations: readOnly,
    },
    (a) => {
      const query = { color: a.color, shadow: a.shadow, plate: a.plate, format: a.format, width: a.width, background: a.background, framing: a.framing, margin: a.margin, aspect: a.aspect };
      // the API refuses an empty value where an option is absent: leave out what was not given
      for (const k of Object.keys(query) as Array<keyof typeof query>) if (query[k] === undefined) delete query[k];
      return answer(api.image({ make: a.make, model: a.model, year: a.year, variant: a.variant ?? null, view: a.view }, query));
    },
  );
  server.registerTool(
    'get_spin',
    {
      title: 'Get a spin',
      description:
        'A turntable around a vehicle: signed frame URLs in order of yaw (0 = the front view\'s camera, growing towards the ' +
        'vehicle\'s left side; side_left at 90), each with its layout, in one counted call. Needs the contract\'s spin feature ' +
        'and a vehicle whose set has a 3D source (GET /v1/vehicles/{vehicle_id}/spin).',
      inputSchema: {
        vehicle_id: z.string().max(100).regex(SEGMENT_RE).describe('The vehicle id (get_vehicle answers it)'),
        frames: z.literal(SPIN_FRAME_COUNTS).optional().describe(`How many frames (default ${SPIN_FRAMES_DEFAULT})`),
        color: z.string().optional().describe('A colour name (list_colors) or #rrggbb'),
        shadow: z.boolean().optional().describe('Studio shadow (default true)'),
        plate: z.string().optional().describe('Licence-plate text, 1 to 12 characters, drawn on the frames that show a plate'),
        format: z.enum(FORMATS).optional().describe('Image format (default webp); the contract names those allowed'),
        width: z.number().int().optional().describe(`Width in pixels, clamped to ${SPIN_WIDTH_MIN}..${SPIN_WIDTH_MAX} (default ${SPIN_WIDTH_DEFAULT})`),
        ...picture,
      },
      annotations: readOnly,
    },
    (a) => {
      const query = { frames: a.frames, color: a.color, shadow: a.shadow, plate: a.plate, format: a.format, width: a.width, background: a.background, framing: a.framing, margin: a.margin, aspect: a.aspect };
      for (const k of Object.keys(query) as Array<keyof typeof query>) if (query[k] === undefined) delete query[k];
      return answer(api.spin(a.vehicle_id, query));
    },
  );
  server.registerTool(
    'list_colors',
    { title: 'List colours', description: 'The named paint colours (GET /v1/colors).', annotations: readOnly },
    () => answer(api.colors()),
  );
  server.registerTool(
    'list_views',
    { title: 'List views', description: 'The nine studio views (GET /v1/views).', annotations: readOnly },
    () => answer(api.views()),
  );
  server.registerTool(
    'get_usage',
    {
      title: 'Get usage',
      description: "The organisation's calls of a UTC month per day, key and kind, with its quota (GET /v1/usage); this call included.",
      inputSchema: { month: z.string().optional().describe('YYYY-MM (default the current UTC month)') },
      annotations: readOnly,
    },
    (a) => answer(api.usage(a.month)),
  );
}

const CODES = new Set<string>(ERROR_CODES);

/**
 * The API's answer as JSON text, or its `{error, message}` as a tool error with the same code and
 * message. An answer that is not the API's (no gateway at the address, a proxy's error page) is
 * `unavailable`: the agent may retry, and nothing of it is shown.
 */
export async function toolAnswer(call: Promise<unknown>, onUnexpected: (err: unknown) => void): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await call) }] };
  } catch (err) {
    const known = err instanceof ApiError && CODES.has(err.code);
    if (!known) onUnexpected(err);
    const body: { error: ErrorCode; message: string } = known ? { error: err.code as ErrorCode, message: err.message } : { error: 'unavailable', message: MESSAGES.unavailable };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}
