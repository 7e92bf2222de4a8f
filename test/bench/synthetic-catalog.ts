/**
 * A deterministic synthetic vehicle catalog (`vehicle-catalog/v1`) for benchmarks and scale tests.
 *
 * Invented make, model and variant names (some with accented letters, so that search folding is
 * exercised), 4 categories, years over a decade. The default 100,000 variants come out as about
 * 200 makes × ~10 models × 10 years × ~5 variants. The same options always give the same catalog.
 *
 * CLI: `npx tsx test/bench/synthetic-catalog.ts --variants 100000 --seed 1 --out /tmp/catalog.json`
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CatalogFile } from '../../gateway/catalog/catalog-file.ts';
import { normaliseText } from '../../gateway/catalog/search-terms.ts';
import { mulberry32 } from '../../shared/seeded-random.ts';

export interface SyntheticCatalogOptions {
  /** Total number of variants (vehicle rows); default 100,000. */
  variants: number;
  seed?: number;
  /** The asset set every variant uses; default 'synthetic' (assets/synthetic). */
  assetSet?: string;
}

export const SYNTHETIC_CATEGORIES = [
  { slug: 'passenger-car', name: 'Passenger car' },
  { slug: 'suv', name: 'SUV' },
  { slug: 'van', name: 'Van' },
  { slug: 'pickup', name: 'Pick-up' },
] as const;

export const rng = mulberry32;

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'tr', 'st', 'gl', 'kr', 'ch', 'sk'];
const ACCENTED_ONSETS = ['š', 'ž', 'ñ', 'č'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'o'];
const ACCENTED_VOWELS = ['é', 'è', 'ä', 'ö', 'ü', 'å', 'ø', 'í', 'ô'];
const CODAS = ['', '', '', 'n', 'r', 's', 'l', 'x', 'm', 'k'];
const TRIMS = [
  'Base', 'Sport', 'Élégance', 'GT Line', 'Touring', 'Cabriolet', 'Coupé', 'Prestige', 'Allure', 'Active',
  'Life', 'Turbo S', 'Quattro', 'Évolution', 'Hybrid', 'Électrique', 'Limousine', 'Break', 'Pure', 'Première',
  'Signature', 'Dynamique', 'Komfort', 'Größe', 'Ñandú', 'Rallye', 'Initiale', 'Trail', 'Crew Cab', 'Long',
];
const ENGINES = ['1.0', '1.2', '1.4', '1.6', '2.0', '2.5', '3.0', 'e-150', 'e-204', 'V6', 'V8', 'TDI', 'dCi', 'HDi'];

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function slugify(name: string): string {
  return normaliseText(name).replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/**
 * Builds the catalog. Makes have 8–12 models, each model 10 consecutive years starting between 2006
 * and 2015, each year 3–7 variants, until `variants` is reached (the last make/model/year may be
 * shorter). About 1% of variants are unpublished, and some have an unpublished view.
 */
export function syntheticCatalog(opts: SyntheticCatalogOptions): CatalogFile {
  const total = opts.variants;
  if (!Number.isInteger(total) || total < 1) throw new Error('variants must be a positive integer');
  const rand = rng(opts.seed ?? 1);
  const assetSet = opts.assetSet ?? 'synthetic';
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const word = (syllables: number) => {
    let w = '';
    for (let i = 0; i < syllables; i++) {
      // About a third of the names get an accented letter somewhere.
      w += (rand() < 0.03 ? pick(ACCENTED_ONSETS) : pick(ONSETS)) + (rand() < 0.1 ? pick(ACCENTED_VOWELS) : pick(VOWELS));
      if (i === syllables - 1) w += pick(CODAS);
    }
    return w;
  };

  const makeSlugs = new Set<string>();
  const makes: CatalogFile['makes'] = [];
  let count = 0;
  while (count < total) {
    let makeName: string;
    let makeSlug: string;
    do {
      makeName = capitalise(word(int(2, 3)));
      if (rand() < 0.15) makeName += ` ${capitalise(word(2))}`; // two-word makes
      makeSlug = slugify(makeName);
    } while (makeSlugs.has(makeSlug) || makeSlug.length < 3);
    makeSlugs.add(makeSlug);

    const models: CatalogFile['makes'][number]['models'] = [];
    const modelSlugs = new Set<string>();
    const nModels = int(8, 12);
    for (let m = 0; m < nModels && count < total; m++) {
      let modelName: string;
      let modelSlug: string;
      do {
        const r = rand();
        modelName = r < 0.5 ? capitalise(word(int(2, 3))) : r < 0.8 ? `${capitalise(word(2))} ${int(1, 9)}` : `${pick(['X', 'Q', 'Z', 'R', 'S'])}${int(1, 99)}`;
        modelSlug = slugify(modelName);
      } while (modelSlugs.has(modelSlug));
      modelSlugs.add(modelSlug);
      const category = pick(SYNTHETIC_CATEGORIES).slug;
      const firstYear = int(2006, 2015);
      const years: CatalogFile['makes'][number]['models'][number]['years'] = [];
      for (let y = 0; y < 10 && count < total; y++) {
        const variants: CatalogFile['makes'][number]['models'][number]['years'][number]['variants'] = [];
        const slugs = new Set<string>();
        const nVariants = int(3, 7);
        for (let v = 0; v < nVariants && count < total; v++) {
          let name: string;
          let slug: string;
          do {
            name = `${pick(ENGINES)} ${pick(TRIMS)}`;
            slug = slugify(name);
          } while (slugs.has(slug));
          slugs.add(slug);
          variants.push({
            slug,
            name,
            // Mostly the model's category; a few variants elsewhere (a van version of a car, …).
            category: rand() < 0.9 ? category : pick(SYNTHETIC_CATEGORIES).slug,
            asset_set: assetSet,
            published: rand() >= 0.01,
            unpublished_views: rand() < 0.02 ? ['top_down'] : [],
          });
          count++;
        }
        years.push({ year: firstYear + y, variants });
      }
      models.push({ slug: modelSlug, name: modelName, years });
    }
    makes.push({ slug: makeSlug, name: makeName, models });
  }
  return { format: 'vehicle-catalog/v1', categories: SYNTHETIC_CATEGORIES.map((c) => ({ ...c })), makes };
}

/** Every variant in catalog order, flattened (handy for picking bench targets and test queries). */
export function* syntheticVariants(file: CatalogFile) {
  for (const mk of file.makes) {
    for (const md of mk.models) {
      for (const y of md.years) {
        for (const v of y.variants) yield { make: mk, model: md, year: y.year, variant: v };
      }
    }
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      variants: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      'asset-set': { type: 'string', default: 'synthetic' },
      out: { type: 'string', short: 'o' },
    },
  });
  const file = syntheticCatalog({ variants: Number(values.variants), seed: Number(values.seed), assetSet: values['asset-set'] });
  const text = JSON.stringify(file);
  if (values.out) {
    fs.mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
    fs.writeFileSync(values.out, text);
    process.stderr.write(`wrote ${values.variants} variants, ${file.makes.length} makes, ${(text.length / 1e6).toFixed(1)} MB to ${values.out}\n`);
  } else {
    process.stdout.write(text + '\n');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
