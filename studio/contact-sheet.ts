/**
 * `npm run contact-sheet -- <make> <model> <year> [variant] [--out file.png] [--catalog file] [--tile 320]`
 * Looks the vehicle up in the demo catalog (or --catalog), starts the real renderer as a child, asks it
 * over gRPC for the nine views in several colours (with and without shadow, with a plate) and writes a
 * labelled grid: one row per render option set, one column per view. `.webp` output is small enough
 * for the README.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import sharp from 'sharp';
import { createLogger } from '../shared/logger.ts';
import { connectRenderer } from '../shared/render-contract.ts';
import { VIEWS, type ViewId } from '../shared/views.ts';
import { startRendererChild } from './renderer-child.ts';

interface CatalogVariant {
  slug: string | null;
  name: string | null;
  category: string;
  asset_set: string;
  published: boolean;
  unpublished_views: string[];
}
interface Catalog {
  makes: Array<{ slug: string; name: string; models: Array<{ slug: string; name: string; years: Array<{ year: number; variants: CatalogVariant[] }> }> }>;
}

export const SHEET_ROWS: Array<{ label: string; color: string; shadow: boolean; plate: string | null }> = [
  { label: 'white #F5F5F5 · shadow', color: '#F5F5F5', shadow: true, plate: null },
  { label: 'red #C41E3A · shadow · plate', color: '#C41E3A', shadow: true, plate: 'AB 123 CD' },
  { label: 'blue #1E4B8C · no shadow', color: '#1E4B8C', shadow: false, plate: null },
  { label: 'black #1A1A1A · shadow · plate', color: '#1A1A1A', shadow: true, plate: 'STUDIO 9' },
  { label: 'yellow #F5C518 · shadow', color: '#F5C518', shadow: true, plate: null },
];

type Overlay = NonNullable<Parameters<ReturnType<typeof sharp>['composite']>[0]>[number];

function norm(s: string): string {
  return s.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export function findVehicle(cat: Catalog, make: string, model: string, year: number, variant?: string) {
  const mk = cat.makes.find((m) => m.slug === norm(make) || norm(m.name) === norm(make));
  if (!mk) throw new Error(`make "${make}" not in the catalog (makes: ${cat.makes.map((m) => m.slug).join(', ')})`);
  const md = mk.models.find((m) => m.slug === norm(model) || norm(m.name) === norm(model));
  if (!md) throw new Error(`model "${model}" not found for ${mk.name} (models: ${mk.models.map((m) => m.slug).join(', ')})`);
  const yr = md.years.find((y) => y.year === year);
  if (!yr) throw new Error(`year ${year} not found for ${mk.name} ${md.name} (years: ${md.years.map((y) => y.year).join(', ')})`);
  let v: CatalogVariant | undefined;
  if (variant) {
    v = yr.variants.find((x) => x.slug === norm(variant) || (x.name && norm(x.name) === norm(variant)));
    if (!v) throw new Error(`variant "${variant}" not found (variants: ${yr.variants.map((x) => x.slug ?? '(none)').join(', ')})`);
  } else if (yr.variants.length === 1) {
    v = yr.variants[0];
  } else {
    throw new Error(`${mk.name} ${md.name} ${year} has several variants: pass one of ${yr.variants.map((x) => x.slug).join(', ')}`);
  }
  return { make: mk, model: md, year, variant: v! };
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function textSvg(w: number, h: number, text: string, size: number, opts: { bold?: boolean; fill?: string; bg?: string } = {}): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">` +
      (opts.bg ? `<rect width="100%" height="100%" fill="${opts.bg}"/>` : '') +
      `<text x="8" y="${Math.round(h / 2 + size * 0.35)}" font-family="DejaVu Sans, Arial, sans-serif" font-size="${size}"` +
      ` font-weight="${opts.bold ? 'bold' : 'normal'}" fill="${opts.fill ?? '#222'}">${esc(text)}</text></svg>`,
  );
}

export function contactSheetCommand(): Command {
  return new Command('contact-sheet')
    .description('a labelled grid of the nine views in several colours, rendered by the real renderer')
    .argument('<make>')
    .argument('<model>')
    .argument('<year>')
    .argument('[variant]')
    .option('--out <file>', 'output image (.png or .webp)')
    .option('--catalog <file>', 'catalog JSON', 'assets/demo-catalog.json')
    .option('--tile <px>', 'width of one render', '320')
    .option('--rows <n>', 'how many colour rows (1..5)', '4')
    .action(writeContactSheet);
}

async function writeContactSheet(make: string, model: string, yearStr: string, variantArg: string | undefined, o: { out?: string; catalog: string; tile: string; rows: string }): Promise<void> {
  const cat = JSON.parse(await fs.readFile(o.catalog, 'utf8')) as Catalog;
  const found = findVehicle(cat, make, model, Number(yearStr), variantArg);
  const tile = Math.max(200, Math.min(2400, Number(o.tile)));
  const rows = SHEET_ROWS.slice(0, Math.max(1, Math.min(SHEET_ROWS.length, Number(o.rows))));
  const out = o.out ?? `contact-sheet-${found.make.slug}-${found.model.slug}-${found.year}${found.variant.slug ? '-' + found.variant.slug : ''}.png`;

  const logger = createLogger('contact-sheet', 'warn');
  const renderer = await startRendererChild(process.env);
  const client = connectRenderer(renderer.address);
  try {
    const title = `${found.make.name} ${found.model.name} ${found.year}${found.variant.name ? ' ' + found.variant.name : ''}` +
      `  ·  set ${found.variant.asset_set}  ·  ${found.variant.category}${found.variant.published ? '' : '  ·  UNPUBLISHED'}`;
    const tiles: Overlay[] = [];
    let tileH = 0;
    const labelW = 270;
    const headH = 44;
    const viewLabelH = 26;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      for (let c = 0; c < VIEWS.length; c++) {
        const view = VIEWS[c]!.id as ViewId;
        const res = await client.render(
          { assetSet: found.variant.asset_set, view, color: row.color, shadow: row.shadow, plate: row.plate, format: 'png', width: tile },
          new Date(Date.now() + 60_000),
          { deadlineMs: 60_000 },
        );
        const parts: Buffer[] = [];
        for await (const chunk of res.body) parts.push(chunk);
        tileH = res.header.height;
        tiles.push({ input: Buffer.concat(parts), left: labelW + c * tile, top: headH + viewLabelH + r * tileH });
        process.stdout.write(`\r${row.label.padEnd(34)} ${view.padEnd(12)} (${r * VIEWS.length + c + 1}/${rows.length * VIEWS.length})`);
      }
    }
    process.stdout.write('\n');
    const W = labelW + VIEWS.length * tile;
    const H = headH + viewLabelH + rows.length * tileH;
    const labels: Overlay[] = [
      { input: textSvg(W, headH, title, 22, { bold: true, bg: '#ffffff' }), left: 0, top: 0 },
    ];
    for (let c = 0; c < VIEWS.length; c++) {
      const v = VIEWS[c]!;
      const hidden = found.variant.unpublished_views.includes(v.id);
      labels.push({ input: textSvg(tile, viewLabelH, `${v.id}${hidden ? ' (unpublished)' : ''}`, 15, { fill: hidden ? '#b00' : '#333' }), left: labelW + c * tile, top: headH });
    }
    for (let r = 0; r < rows.length; r++) {
      labels.push({ input: textSvg(labelW, tileH, rows[r]!.label, 14, {}), left: 0, top: headH + viewLabelH + r * tileH });
    }
    const img = sharp({ create: { width: W, height: H, channels: 3, background: '#ffffff' } }).composite([...tiles, ...labels]);
    await fs.mkdir(path.dirname(path.resolve(out)), { recursive: true });
    if (out.endsWith('.webp')) await img.webp({ quality: 78, effort: 6 }).toFile(out);
    else await img.png({ compressionLevel: 9 }).toFile(out);
    console.log(`wrote ${out} (${W}x${H})`);
  } finally {
    client.close();
    await renderer.stop();
  }
}
