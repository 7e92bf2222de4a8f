/**
 * Generates assets/demo-catalog.json (format "vehicle-catalog/v1"): invented makes and models, each
 * model drawn on one of the baked sets. At its head, the sets baked from real 3D models
 * (REAL_MODEL_MAKES, docs/credits.md) under a fictional make that sorts first, so the gateway's
 * first-image example (the first make's first model) is a real car. Then the procedural sets' makes.
 * Deterministic (seeded); re-run after changing the lists:
 *   npm run studio -- demo-catalog [--out assets/demo-catalog.json]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEW_IDS } from '../../shared/views.ts';
import { mulberry32 } from '../../shared/seeded-random.ts';

type Cat = 'passenger-car' | 'suv' | 'light-commercial' | 'sports' | 'pickup';
export const CATEGORIES: Array<{ slug: Cat; name: string }> = [
  { slug: 'passenger-car', name: 'Passenger car' },
  { slug: 'suv', name: 'SUV' },
  { slug: 'light-commercial', name: 'Light commercial' },
  { slug: 'sports', name: 'Sports' },
  { slug: 'pickup', name: 'Pickup' },
];

/** model kind → [category, primary set, alternative set for a second variant] */
const KINDS: Record<string, [Cat, string, string]> = {
  sedan: ['passenger-car', 'sedan-a', 'sedan-a'],
  limo: ['passenger-car', 'sedan-a', 'estate-a'],
  hatch: ['passenger-car', 'hatchback-a', 'hatchback-b'],
  city: ['passenger-car', 'hatchback-b', 'hatchback-a'],
  estate: ['passenger-car', 'estate-a', 'estate-a'],
  suv: ['suv', 'suv-a', 'suv-a'],
  crossover: ['suv', 'suv-a', 'hatchback-a'],
  coupe: ['sports', 'sportscoupe-a', 'roadster-50s-a'],
  pickup: ['pickup', 'pickup-a', 'pickup-a'],
  van: ['light-commercial', 'van-a', 'van-a'],
};

const MAKES: Array<[string, Array<[string, keyof typeof KINDS]>]> = [
  ['Aurelia', [['Vento', 'sedan'], ['Lucca', 'hatch'], ['Serra', 'suv'], ['Corsa Alta', 'coupe']]],
  ['Corvane', [['Meridian', 'limo'], ['Pike', 'crossover'], ['Tessel', 'estate']]],
  ['Delmar', [['Harbor', 'van'], ['Ridgeback', 'pickup'], ['Breeze', 'city']]],
  ['Estrada', [['Solano', 'sedan'], ['Cumbre', 'suv'], ['Brisa', 'hatch'], ['Faro', 'estate']]],
  ['Falkor', [['Strix', 'coupe'], ['Talon', 'sedan'], ['Aerie', 'crossover']]],
  ['Gavanti', [['Nove', 'city'], ['Quadra', 'sedan'], ['Viaggio', 'estate']]],
  ['Halvor', [['Fjell', 'suv'], ['Bruk', 'van'], ['Skarp', 'pickup'], ['Lys', 'hatch']]],
  ['Istra', [['Mira', 'hatch'], ['Kora', 'crossover'], ['Pula', 'sedan']]],
  ['Kestrel', [['Hover', 'coupe'], ['Glide', 'limo'], ['Perch', 'estate']]],
  ['Lumeno', [['Aura', 'city'], ['Halo', 'crossover'], ['Prisma', 'sedan']]],
  ['Marrow', [['Haulmark', 'van'], ['Quarry', 'pickup'], ['Drover', 'suv']]],
  ['Nordvik', [['Sund', 'estate'], ['Tind', 'suv'], ['Vika', 'hatch'], ['Storm', 'coupe']]],
  ['Orvieto', [['Duomo', 'limo'], ['Tufo', 'city'], ['Rupe', 'crossover']]],
  ['Quillon', [['Sabre', 'coupe'], ['Guard', 'pickup'], ['Hilt', 'sedan']]],
];

const VARIANT_NAMES: Record<Cat, Array<[string, string]>> = {
  'passenger-car': [['base', 'Base'], ['comfort', 'Comfort'], ['sport', 'Sport'], ['hybrid', 'Hybrid'], ['touring', 'Touring'], ['limited', 'Limited']],
  suv: [['base', 'Base'], ['trail', 'Trail'], ['hybrid', 'Hybrid'], ['limited', 'Limited'], ['sport', 'Sport']],
  'light-commercial': [['cargo', 'Cargo'], ['crew', 'Crew'], ['long', 'Long Wheelbase'], ['kombi', 'Kombi']],
  sports: [['base', 'Base'], ['gt', 'GT'], ['r', 'R'], ['cabrio-look', 'Open Air Edition']],
  pickup: [['work', 'Work'], ['crew-cab', 'Crew Cab'], ['trail', 'Trail'], ['limited', 'Limited']],
};

/**
 * Sets baked from real glTF models (studio/bake/gltf/demo-sets.ts), under fictional names: no
 * manufacturer's name or badge. Written out by hand (every vehicle published, every view), ahead of
 * the seeded makes.
 */
export const REAL_MODEL_MAKES: Array<{ make: string; models: Array<{ model: string; category: Cat; years: Array<[number, Array<[string | null, string | null, string]>]> }> }> = [
  {
    make: 'Alcora',
    models: [
      {
        model: 'Falco', // the modern sports coupé (sportscoupe-a)
        category: 'sports',
        years: [
          [2024, [[null, null, 'sportscoupe-a']]],
          [2023, [['base', 'Base', 'sportscoupe-a'], ['gt', 'GT', 'sportscoupe-a']]],
          [2021, [[null, null, 'sportscoupe-a']]],
        ],
      },
      {
        model: 'Riviera', // the 1950s-style coupé with a soft top (roadster-50s-a), a heritage re-edition
        category: 'sports',
        years: [
          [2024, [['heritage', 'Heritage', 'roadster-50s-a'], ['heritage-lusso', 'Heritage Lusso', 'roadster-50s-a']]],
          [2022, [[null, null, 'roadster-50s-a']]],
        ],
      },
    ],
  },
];

function slugify(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

const rng = mulberry32;

interface Variant {
  slug: string | null;
  name: string | null;
  category: string;
  asset_set: string;
  published: boolean;
  unpublished_views: string[];
}

export function buildDemoCatalog(): unknown {
  const rand = rng(20240601);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let vehicleNo = 0;
  const makes = MAKES.map(([makeName, models]) => ({
    slug: slugify(makeName),
    name: makeName,
    models: models.map(([modelName, kind]) => {
      const [category, setA, setB] = KINDS[kind]!;
      const longRunner = makeName === 'Aurelia' && modelName === 'Vento';
      const newest = longRunner ? 2024 : 2024 - Math.floor(rand() * 2);
      const span = longRunner ? 10 : 3 + Math.floor(rand() * 5); // 3..7 years
      const years: Array<{ year: number; variants: Variant[] }> = [];
      for (let k = 0; k < span; k++) {
        const year = longRunner ? newest - k : newest - k * (rand() < 0.25 ? 2 : 1);
        if (year < 2015) break;
        if (years.some((y) => y.year === year)) continue;
        const several = rand() < 0.4;
        const variants: Variant[] = [];
        const mk = (slug: string | null, name: string | null, set: string): Variant => {
          vehicleNo++;
          const unpublished = vehicleNo % 29 === 7;
          const hidden = vehicleNo % 17 === 3 ? [pick(VIEW_IDS)] : vehicleNo % 23 === 5 ? ['top_down', 'rear_left'] : [];
          return { slug, name, category, asset_set: set, published: !unpublished, unpublished_views: hidden };
        };
        if (several) {
          const n = 2 + Math.floor(rand() * 2);
          const names = VARIANT_NAMES[category];
          const start = Math.floor(rand() * names.length);
          for (let i = 0; i < Math.min(n, names.length); i++) {
            const [slug, name] = names[(start + i) % names.length]!;
            variants.push(mk(slug, name, i === 1 ? setB : setA));
          }
        } else {
          variants.push(mk(null, null, setA));
        }
        years.push({ year, variants });
      }
      years.sort((a, b) => b.year - a.year);
      return { slug: slugify(modelName), name: modelName, models: undefined, years };
    }).map(({ models: _m, ...rest }) => rest),
  }));
  const real = REAL_MODEL_MAKES.map(({ make, models }) => ({
    slug: slugify(make),
    name: make,
    models: models.map(({ model, category, years }) => ({
      slug: slugify(model),
      name: model,
      years: years.map(([year, variants]) => ({
        year,
        variants: variants.map(([slug, name, set]): Variant => ({ slug, name, category, asset_set: set, published: true, unpublished_views: [] })),
      })),
    })),
  }));
  return { format: 'vehicle-catalog/v1', categories: CATEGORIES, makes: [...real, ...makes] };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? process.argv[i + 1]! : 'assets/demo-catalog.json';
  fs.writeFileSync(out, JSON.stringify(buildDemoCatalog(), null, 2) + '\n');
  console.log(`wrote ${out}`);
}
