import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import { catalog, type ModelEntry, type VariantEntry } from '../playground/catalog.ts';
import type { NamedRef } from '../types.ts';
import { ErrorNotice } from './Notice.tsx';

export interface PickedVehicle {
  make: string;
  model: string;
  year: number;
  variant: string | null;
  label: string;
  views: string[];
}

/**
 * Make › model › year › variant as labelled selects; each choice loads the next step and picks its first
 * entry. A year with one visible vehicle answers its views at once and shows no variant select. A newer
 * choice wins over answers still on their way (the generation counter).
 */
export function VehiclePicker({ api, onPicked }: { api: ApiClient; onPicked: (v: PickedVehicle | null) => void }) {
  const [makes, setMakes] = useState<NamedRef[]>([]);
  const [make, setMake] = useState('');
  const [models, setModels] = useState<ModelEntry[]>([]);
  const [model, setModel] = useState('');
  const [year, setYear] = useState<number | null>(null);
  const [variants, setVariants] = useState<VariantEntry[] | null>(null);
  const [variant, setVariant] = useState('');
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);

  async function step<T>(work: () => Promise<T>): Promise<T | null> {
    const mine = ++generation.current;
    try {
      const r = await work();
      if (mine !== generation.current) return null;
      setError(null);
      return r;
    } catch (e) {
      if (mine === generation.current) setError(e);
      return null;
    }
  }

  async function chooseVariant(mk: string, md: string, y: number, slug: string) {
    setVariant(slug);
    onPicked(null);
    const a = await step(() => catalog.variant(api, mk, md, y, slug));
    if (!a) return;
    const v = a.vehicle;
    onPicked({ make: mk, model: md, year: y, variant: slug, views: a.views, label: `${v.make} ${v.model} ${v.year} ${v.variant ?? ''}`.trim() });
  }

  async function chooseYear(mk: string, md: string, y: number | null) {
    setYear(y);
    setVariants(null);
    setVariant('');
    onPicked(null);
    if (y === null) return;
    const a = await step(() => catalog.year(api, mk, md, y));
    if (!a) return;
    if ('variants' in a) {
      setVariants(a.variants);
      if (a.variants[0]) await chooseVariant(mk, md, y, a.variants[0].slug);
    } else {
      onPicked({ make: mk, model: md, year: y, variant: null, views: a.views, label: `${a.vehicle.make} ${a.vehicle.model} ${a.vehicle.year}` });
    }
  }

  async function chooseModel(mk: string, md: string, list: ModelEntry[]) {
    setModel(md);
    await chooseYear(mk, md, list.find((m) => m.slug === md)?.years[0] ?? null);
  }

  async function chooseMake(mk: string) {
    setMake(mk);
    setModels([]);
    setModel('');
    await chooseYear(mk, '', null);
    const list = await step(() => catalog.models(api, mk));
    if (!list) return;
    setModels(list);
    if (list[0]) await chooseModel(mk, list[0].slug, list);
  }

  useEffect(() => {
    void step(() => catalog.makes(api)).then((m) => {
      if (!m) return;
      setMakes(m);
      if (m[0]) void chooseMake(m[0].slug);
    });
  }, [api]);

  const years = models.find((m) => m.slug === model)?.years ?? [];

  return (
    <>
      <ErrorNotice error={error} />
      <div class="field-row">
        <div class="field">
          <label for="pg-make">Make</label>
          <select id="pg-make" value={make} onChange={(e) => void chooseMake(e.currentTarget.value)}>
            {makes.length === 0 && <option value="">Loading…</option>}
            {makes.map((m) => (
              <option key={m.slug} value={m.slug}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="pg-model">Model</label>
          <select id="pg-model" value={model} disabled={models.length === 0} onChange={(e) => void chooseModel(make, e.currentTarget.value, models)}>
            {models.map((m) => (
              <option key={m.slug} value={m.slug}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="field-row">
        <div class="field">
          <label for="pg-year">Year</label>
          <select
            id="pg-year"
            value={year === null ? '' : String(year)}
            disabled={years.length === 0}
            onChange={(e) => void chooseYear(make, model, Number(e.currentTarget.value))}
          >
            {years.map((y) => (
              <option key={y} value={String(y)}>
                {y}
              </option>
            ))}
          </select>
        </div>
        {variants && (
          <div class="field">
            <label for="pg-variant">Variant</label>
            <select id="pg-variant" value={variant} onChange={(e) => year !== null && void chooseVariant(make, model, year, e.currentTarget.value)}>
              {variants.map((v) => (
                <option key={v.slug} value={v.slug}>
                  {v.name} ({v.category})
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
    </>
  );
}
