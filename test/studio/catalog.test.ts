import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { VIEW_IDS } from '../../shared/views.ts';
import { buildDemoCatalog, REAL_MODEL_MAKES } from '../../studio/bake/demo-catalog.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const REAL_BRANDS = ['toyota', 'ford', 'bmw', 'audi', 'mercedes', 'volkswagen', 'honda', 'nissan', 'fiat', 'renault', 'peugeot', 'volvo', 'kia', 'hyundai', 'tesla', 'skoda', 'seat', 'opel', 'mazda', 'subaru', 'porsche', 'ferrari', 'jeep', 'dodge', 'chevrolet', 'lexus', 'mini', 'citroen', 'dacia', 'suzuki'];

interface Variant { slug: string | null; name: string | null; category: string; asset_set: string; published: boolean; unpublished_views: string[] }
interface Catalog {
  format: string;
  categories: Array<{ slug: string; name: string }>;
  makes: Array<{ slug: string; name: string; models: Array<{ slug: string; name: string; years: Array<{ year: number; variants: Variant[] }> }> }>;
}

describe('studio: assets/demo-catalog.json', () => {
  const file = path.resolve('assets/demo-catalog.json');
  const cat = JSON.parse(fs.readFileSync(file, 'utf8')) as Catalog;
  const variants = () => cat.makes.flatMap((m) => m.models.flatMap((mo) => mo.years.flatMap((y) => y.variants)));

  it('has the vehicle-catalog/v1 shape with unique slugs', () => {
    assert.equal(cat.format, 'vehicle-catalog/v1');
    const catSlugs = cat.categories.map((c) => c.slug);
    assert.equal(new Set(catSlugs).size, catSlugs.length);
    for (const c of cat.categories) {
      assert.match(c.slug, SLUG);
      assert.ok(c.name);
    }
    assert.equal(new Set(cat.makes.map((m) => m.slug)).size, cat.makes.length);
    for (const m of cat.makes) {
      assert.match(m.slug, SLUG);
      assert.ok(m.name.trim());
      assert.equal(new Set(m.models.map((x) => x.slug)).size, m.models.length, `${m.slug}: duplicate model slug`);
      for (const mo of m.models) {
        assert.match(mo.slug, SLUG);
        assert.ok(mo.years.length > 0, `${m.slug}/${mo.slug}: no years`);
        const ys = mo.years.map((y) => y.year);
        assert.deepEqual(ys, [...ys].sort((a, b) => b - a), `${m.slug}/${mo.slug}: years newest first`);
        assert.equal(new Set(ys).size, ys.length);
        for (const y of mo.years) {
          assert.ok(Number.isInteger(y.year) && y.year >= 1990 && y.year <= 2100);
          assert.ok(y.variants.length > 0);
          if (y.variants.length === 1 && y.variants[0]!.slug === null) assert.equal(y.variants[0]!.name, null);
          if (y.variants.length > 1) {
            for (const v of y.variants) {
              assert.ok(v.slug && SLUG.test(v.slug), `${m.slug}/${mo.slug}/${y.year}: variant slug`);
              assert.ok(v.name, `${m.slug}/${mo.slug}/${y.year}: variant name`);
            }
            assert.equal(new Set(y.variants.map((v) => v.slug)).size, y.variants.length);
          }
          for (const v of y.variants) {
            assert.ok(catSlugs.includes(v.category), `unknown category ${v.category}`);
            assert.equal(typeof v.published, 'boolean');
            assert.ok(Array.isArray(v.unpublished_views));
            for (const view of v.unpublished_views) assert.ok((VIEW_IDS as readonly string[]).includes(view), `unknown view ${view}`);
          }
        }
      }
    }
  });

  it('meets the demo size rules', () => {
    assert.ok(cat.categories.length >= 4);
    assert.ok(cat.makes.length >= 12);
    assert.ok(cat.makes.reduce((n, m) => n + m.models.length, 0) >= 40);
    const years = cat.makes.flatMap((m) => m.models.flatMap((mo) => mo.years.map((y) => y.year)));
    assert.ok(Math.max(...years) - Math.min(...years) >= 9, 'years span a decade');
    const yearEntries = cat.makes.flatMap((m) => m.models.flatMap((mo) => mo.years));
    assert.ok(yearEntries.some((y) => y.variants.length > 1), 'some years have several variants');
    assert.ok(yearEntries.some((y) => y.variants.length === 1 && y.variants[0]!.slug === null), 'some years have a single variant');
    const vs = variants();
    assert.ok(vs.filter((v) => !v.published).length >= 2, 'a few unpublished vehicles');
    assert.ok(vs.filter((v) => v.unpublished_views.length > 0).length >= 2, 'a few unpublished views');
    assert.ok(vs.filter((v) => v.published).length > vs.length / 2);
    const usedCats = new Set(vs.map((v) => v.category));
    assert.ok(usedCats.size >= 4);
  });

  it('uses invented names only', () => {
    for (const m of cat.makes) for (const b of REAL_BRANDS) assert.ok(!m.slug.includes(b), `${m.slug} looks like a real brand`);
  });

  it('is what studio/bake/demo-catalog.ts generates', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(buildDemoCatalog())), cat);
  });

  it('leads with the real-model sets, credited beside the set, under invented names', () => {
    const realSets = new Set(REAL_MODEL_MAKES.flatMap((m) => m.models.flatMap((mo) => mo.years.flatMap(([, vs]) => vs.map((v) => v[2])))));
    assert.ok(realSets.size >= 2);
    // the head of the catalog
    const head = cat.makes.slice(0, REAL_MODEL_MAKES.length);
    for (const m of head) for (const mo of m.models) for (const y of mo.years) for (const v of y.variants) assert.ok(realSets.has(v.asset_set), `${m.slug}/${mo.slug}: ${v.asset_set}`);
    // the gateway's first-image example is the first make's first model (by slug) with a published front_left
    const first = [...cat.makes].sort((a, b) => a.slug.localeCompare(b.slug))[0]!;
    const model = [...first.models].sort((a, b) => a.slug.localeCompare(b.slug))[0]!;
    const newest = model.years[0]!.variants.find((v) => v.published && !v.unpublished_views.includes('front_left'));
    assert.ok(newest && realSets.has(newest.asset_set), `the first image (${first.slug}/${model.slug}) is not a real-model set`);
    for (const set of realSets) {
      assert.ok(fs.existsSync(path.resolve('assets', set, 'CREDITS.md')), `assets/${set}/CREDITS.md`);
      const src = (JSON.parse(fs.readFileSync(path.resolve('assets', set, 'set.json'), 'utf8')) as { source: { kind: string; note: string } }).source;
      assert.equal(src.kind, 'gltf');
      assert.match(src.note, /CC BY-SA|MPL/);
    }
    const trademarks = /porsche|carrera|911|targa|bmw|persival|openmaterial/i;
    for (const m of cat.makes) {
      for (const name of [m.name, m.slug, ...m.models.flatMap((mo) => [mo.name, mo.slug, ...mo.years.flatMap((y) => y.variants.flatMap((v) => [v.name ?? '', v.slug ?? '']))])]) {
        assert.ok(!trademarks.test(name), `"${name}" names a manufacturer or its model`);
      }
    }
  });

  it('points every variant at a baked set under assets/', () => {
    for (const v of variants()) {
      assert.ok(fs.existsSync(path.resolve('assets', v.asset_set, 'set.json')), `asset_set ${v.asset_set} is not baked`);
    }
  });
});
