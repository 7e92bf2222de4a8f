import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import { catalog, type ModelEntry, type VariantEntry } from '../playground/catalog.ts';
import type { NamedRef } from '../types.ts';
import { ErrorNotice } from './Notice.tsx';
import { RetryButton } from './RetryButton.tsx';

export interface PickedVehicle {
  /** The catalog's vehicle id: the spin call's path names it. */
  id: string;
  make: string;
  model: string;
  year: number;
  variant: string | null;
  label: string;
  views: string[];
}

/**
 * Make › model › year › variant as labelled selects, each showing its placeholder until chosen: a
 * disabled option is never selected by the browser on its own, so a select whose only option is the
 * placeholder would show nothing unless the placeholder is marked selected.
 *
 * Each choice loads the next step and picks its first entry. A year with one visible vehicle answers
 * its views at once and shows no variant select. A newer choice wins over answers still on their way
 * (the generation counter).
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
  /** The makes' load: 'failed' offers a retry instead of a select that says "Loading…" for good. */
  const [makesState, setMakesState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [makesTry, setMakesTry] = useState(0);
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
    onPicked({ id: v.id, make: mk, model: md, year: y, variant: slug, views: a.views, label: `${v.make} ${v.model} ${v.year} ${v.variant ?? ''}`.trim() });
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
      setVariants(a.variants); // the member picks one: each variant fetched is a counted call
    } else {
      onPicked({ id: a.vehicle.id, make: mk, model: md, year: y, variant: null, views: a.views, label: `${a.vehicle.make} ${a.vehicle.model} ${a.vehicle.year}` });
    }
  }

  async function chooseModel(mk: string, md: string) {
    setModel(md);
    // its years are in the models answer already; the member picks one (no call until then)
    await chooseYear(mk, md, null);
  }

  async function chooseMake(mk: string) {
    setMake(mk);
    setModels([]);
    setModel('');
    await chooseYear(mk, '', null);
    const list = await step(() => catalog.models(api, mk));
    if (!list) return;
    setModels(list);
  }

  // Only the makes are loaded unasked: every later step waits for the member's choice, because each
  // is a counted /v1 call of the organisation (docs/dashboard-ui.md, "Playground").
  useEffect(() => {
    setMakesState('loading');
    void step(() => catalog.makes(api)).then((m) => {
      if (m) {
        setMakes(m);
        setMakesState('ready');
      } else setMakesState('failed');
    });
  }, [api, makesTry]);

  const years = models.find((m) => m.slug === model)?.years ?? [];

  return (
    <>
      <ErrorNotice error={error} />
      <div class="field-row">
        <div class="field">
          <label for="pg-make">Make</label>
          <select id="pg-make" value={make} onChange={(e) => void chooseMake(e.currentTarget.value)}>
            <option value="" disabled selected={make === ''}>
              {makesState === 'loading' ? 'Loading…' : makesState === 'failed' ? 'Not loaded' : 'Choose a make'}
            </option>
            {makes.map((m) => (
              <option key={m.slug} value={m.slug}>
                {m.name}
              </option>
            ))}
          </select>
          {(makesState === 'failed' || (makesState === 'loading' && makesTry > 0)) && (
            // stays while it works (aria-disabled keeps the keyboard's focus on it; disabled would drop it)
            <RetryButton busy={makesState === 'loading'} onRetry={() => setMakesTry((n) => n + 1)} label="Load the makes again" />
          )}
        </div>
        <div class="field">
          <label for="pg-model">Model</label>
          <select id="pg-model" value={model} disabled={models.length === 0} onChange={(e) => void chooseModel(make, e.currentTarget.value)}>
            <option value="" disabled selected={model === ''}>
              {make ? 'Choose a model' : 'Choose a make first'}
            </option>
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
            <option value="" disabled selected={year === null}>
              {model ? 'Choose a year' : 'Choose a model first'}
            </option>
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
              <option value="" disabled selected={variant === ''}>
                Choose a variant
              </option>
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
