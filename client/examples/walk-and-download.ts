/**
 * Walks the catalog make › model › year › variant › views with the typed client and downloads one
 * picture to a file.
 *
 *   BASE_URL=http://localhost:8080 API_KEY=svc_live_… npm run client:example -- --out car.webp
 *   npm run client:example -- --base-url http://localhost:8080 --api-key svc_live_… --view rear --color blue
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, createClient, type Schemas } from '../src/index.ts';

export interface WalkOptions {
  baseUrl: string;
  apiKey: string;
  out: string;
  view?: Schemas['ViewId'];
  color?: string;
  format?: Schemas['ImageFormat'];
  width?: number;
  log?: (line: string) => void;
}

/** The walk itself; answers what it picked and the file it wrote. */
export async function walkAndDownload(o: WalkOptions) {
  const log = o.log ?? ((line: string) => console.log(line));
  const client = createClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    onRetry: ({ attempt, delayMs }) => log(`429: retry ${attempt} in ${delayMs} ms`),
  });
  const { makes } = await client.makes();
  const make = makes[0];
  if (!make) throw new Error('the catalog shows no make to this key');
  log(`make     ${make.name} (${make.slug}) — ${makes.length} visible`);
  const { models } = await client.models(make.slug);
  const model = models[0]!;
  log(`model    ${model.name} (${model.slug})`);
  const { years } = await client.years(make.slug, model.slug);
  const year = years[0]!.year;
  log(`year     ${year}`);
  const detail = await client.year(make.slug, model.slug, year);
  let variant: string | null = null;
  let views: Schemas['ViewId'][];
  if ('variants' in detail) {
    const first = detail.variants[0]!;
    variant = first.slug;
    log(`variant  ${first.name} (${first.slug}) — ${detail.variants.length} to choose from`);
    const v = await client.variant(make.slug, model.slug, year, first.slug);
    if (!('views' in v)) throw new Error('the variant path did not answer views');
    views = v.views;
  } else {
    views = detail.views;
  }
  log(`views    ${views.join(', ')}`);
  const view = o.view && views.includes(o.view) ? o.view : views.includes('front_left') ? 'front_left' : views[0]!;
  const image = await client.image(
    { make: make.slug, model: model.slug, year, variant, view },
    { color: o.color ?? 'red', format: o.format ?? 'webp', width: o.width ?? 1200 },
  );
  if (!('image_url' in image)) throw new Error('the view path did not answer an image');
  for (const w of image.warnings) log(`warning  ${w.code}: ${w.message}`);
  const file = await client.downloadToFile(image.image_url, o.out);
  log(`image    ${view}, ${file.contentType}, ${file.bytes.length} bytes → ${o.out}`);
  return { make: make.slug, model: model.slug, year, variant, view, file: o.out, contentType: file.contentType, bytes: file.bytes.length };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      out: { type: 'string' },
      view: { type: 'string' },
      color: { type: 'string' },
      format: { type: 'string' },
      width: { type: 'string' },
    },
  });
  const baseUrl = values['base-url'] ?? process.env.BASE_URL ?? 'http://localhost:8080';
  const apiKey = values['api-key'] ?? process.env.API_KEY;
  if (!apiKey) {
    console.error('usage: npm run client:example -- [--base-url URL] --api-key svc_live_… [--out FILE] [--view VIEW] [--color C] [--format F] [--width W]\n(or BASE_URL and API_KEY in the environment)');
    process.exit(2);
  }
  const format = (values.format ?? 'webp') as Schemas['ImageFormat'];
  try {
    await walkAndDownload({
      baseUrl,
      apiKey,
      out: path.resolve(values.out ?? `vehicle.${format}`),
      view: values.view as Schemas['ViewId'] | undefined,
      color: values.color,
      format,
      width: values.width ? Number(values.width) : undefined,
    });
  } catch (err) {
    if (err instanceof ApiError) {
      console.error(`${err.status} ${err.code}: ${err.message} (request ${err.requestId ?? 'unknown'})`);
      process.exit(1);
    }
    throw err;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) await main();
