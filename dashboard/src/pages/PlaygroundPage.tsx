import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import { ColourPicker } from '../components/ColourPicker.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { RenderResult } from '../components/RenderResult.tsx';
import { RetryButton } from '../components/RetryButton.tsx';
import { VehiclePicker, type PickedVehicle } from '../components/VehiclePicker.tsx';
import { catalog, imagePath, type ImageRequest, type NamedColour, type ViewEntry } from '../playground/catalog.ts';
import type { ContractAnswer, ImageAnswer } from '../types.ts';
import { VIEWS } from '../../../shared/views.ts';

const MIN_WIDTH = 200;
const MAX_WIDTH = 2400;

/** Walk the catalog, set the options, and see the image answer exactly as an API client would. */
export function PlaygroundPage({ api }: { api: ApiClient }) {
  const [picked, setPicked] = useState<PickedVehicle | null>(null);
  const viewLabels: readonly ViewEntry[] = VIEWS;
  const [colours, setColours] = useState<NamedColour[]>([]);
  const [formats, setFormats] = useState<string[]>(['webp']);
  const [setupError, setSetupError] = useState<unknown>(null);
  /** The page's set-up: the contract (free), then the colours (a counted call); the form waits for both. */
  const [setup, setSetup] = useState<'loading' | 'ready' | 'no-contract' | 'inactive' | 'failed'>('loading');
  const [setupTry, setSetupTry] = useState(0);

  const [view, setView] = useState('');
  const [colour, setColour] = useState('red');
  const [shadow, setShadow] = useState(true);
  const [plate, setPlate] = useState('');
  const [format, setFormat] = useState('webp');
  const [width, setWidth] = useState(800);
  const [background, setBackground] = useState<'studio' | 'transparent'>('studio');

  const [busy, setBusy] = useState(false);
  const [renderError, setRenderError] = useState<unknown>(null);
  const [result, setResult] = useState<{ path: string; answer: ImageAnswer } | null>(null);

  useEffect(() => {
    // the view labels are the spec's constants (no counted call); the colours come from /v1/colors.
    // Without a contract every /v1 call is refused: the page says so once instead of failing each step.
    let live = true;
    setSetup('loading');
    setSetupError(null);
    (async () => {
      const { contract } = await api.get<ContractAnswer>('/contract');
      if (contract === null) return 'no-contract' as const;
      if (!contract.active) return 'inactive' as const;
      const c = await catalog.colors(api);
      if (!live) return 'ready' as const;
      setColours(c);
      setFormats(contract.allowed_formats);
      if (!contract.allowed_formats.includes('webp') && contract.allowed_formats[0]) setFormat(contract.allowed_formats[0]);
      return 'ready' as const;
    })().then(
      (state) => {
        if (live) setSetup(state);
      },
      (e: unknown) => {
        if (!live) return;
        setSetupError(e);
        setSetup('failed');
      },
    );
    return () => {
      live = false;
    };
  }, [api, setupTry]);

  useEffect(() => {
    // from the view chosen by then, not the one this render saw: a choice made before the effect ran stays
    if (picked) setView((v) => (picked.views.includes(v) ? v : (picked.views[0] ?? '')));
  }, [picked]);

  const request: ImageRequest | null =
    picked && view
      ? {
          make: picked.make,
          model: picked.model,
          year: picked.year,
          variant: picked.variant,
          view,
          color: colour,
          shadow,
          plate,
          format,
          width,
          background,
        }
      : null;

  async function render(e: Event) {
    e.preventDefault();
    if (!request) return;
    const path = imagePath(request);
    setBusy(true);
    setRenderError(null);
    try {
      const answer = await api.get<ImageAnswer>(path);
      setResult({ path, answer });
    } catch (err) {
      setRenderError(err);
    } finally {
      setBusy(false);
    }
  }

  const labelOf = (id: string) => viewLabels.find((v) => v.id === id)?.label ?? id;

  return (
    <>
      <PageHeading title="Playground">Playground</PageHeading>
      <Notice kind="warning">
        Playground calls are your organisation’s calls: each catalog step and each render counts against your monthly
        quota and your requests per minute, and appears in the usage as “Dashboard playground”. Downloading the picture
        itself is not counted.
      </Notice>
      <ErrorNotice error={setupError} />
      {setup === 'loading' && setupTry === 0 && <Notice kind="info">Loading the playground…</Notice>}
      {setup === 'no-contract' && (
        <Notice kind="warning">
          <span data-testid="playground-no-contract">
            Your organisation has no contract yet, so the playground cannot call the API. Your administrator sets one up.
          </span>
        </Notice>
      )}
      {setup === 'inactive' && (
        <Notice kind="warning">
          <span data-testid="playground-inactive">
            Your organisation's contract is not active, so the playground cannot call the API until your administrator
            reactivates it.
          </span>
        </Notice>
      )}
      {(setup === 'failed' || (setup === 'loading' && setupTry > 0)) && (
        <p>
          <RetryButton busy={setup === 'loading'} onRetry={() => setSetupTry((n) => n + 1)} />
        </p>
      )}
      {setup === 'ready' && (
        <div class="playground">
          <form
            class="card form"
            onSubmit={render}
            // a value the browser refuses (width out of range) is said by the browser: an older answer's error would mislead
            onInvalidCapture={() => setRenderError(null)}
            aria-labelledby="pg-form-title"
          >
            <h2 id="pg-form-title">Vehicle and options</h2>
            <VehiclePicker api={api} onPicked={setPicked} />
            <div class="field">
              <label for="pg-view">View</label>
              <select id="pg-view" value={view} disabled={!picked} onChange={(e) => setView(e.currentTarget.value)}>
                {!picked && <option value="">Choose a vehicle first</option>}
                {picked?.views.map((v) => (
                  <option key={v} value={v}>
                    {labelOf(v)}
                  </option>
                ))}
              </select>
            </div>
            <ColourPicker colours={colours} value={colour} onChange={setColour} />
            <div class="field-row">
              <div class="field">
                <label for="pg-format">Format</label>
                <select id="pg-format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
                  {formats.map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="pg-width">Width (px)</label>
                <input
                  id="pg-width"
                  type="number"
                  inputMode="numeric"
                  min={MIN_WIDTH}
                  max={MAX_WIDTH}
                  step={1}
                  required
                  value={width}
                  aria-describedby="pg-width-hint"
                  onInput={(e) => {
                    const n = e.currentTarget.valueAsNumber;
                    if (Number.isFinite(n)) setWidth(Math.round(n));
                  }}
                />
                <span id="pg-width-hint" class="hint">
                  {MIN_WIDTH} to {MAX_WIDTH}
                </span>
              </div>
            </div>
            <div class="field-row">
              <div class="field">
                <label for="pg-plate">Plate text (optional)</label>
                <input id="pg-plate" value={plate} maxLength={12} onInput={(e) => setPlate(e.currentTarget.value)} aria-describedby="pg-plate-hint" />
                <span id="pg-plate-hint" class="hint">
                  Up to 12 letters, digits, spaces, hyphens
                </span>
              </div>
              <div class="field">
                <label for="pg-background">Background</label>
                <select id="pg-background" value={background} onChange={(e) => setBackground(e.currentTarget.value as 'studio' | 'transparent')}>
                  <option value="studio">studio</option>
                  <option value="transparent">transparent</option>
                </select>
              </div>
            </div>
            <label class="check">
              <input type="checkbox" checked={shadow} onChange={(e) => setShadow(e.currentTarget.checked)} />
              Studio floor shadow
            </label>
            <button type="submit" class="button primary" disabled={!request || busy}>
              {busy ? 'Rendering…' : 'Render'}
            </button>
          </form>
          <section class="card result" aria-labelledby="pg-result-title" aria-busy={busy}>
            <h2 id="pg-result-title">Result</h2>
            <ErrorNotice error={renderError} />
            {result ? (
              <RenderResult path={result.path} answer={result.answer} viewLabel={labelOf(result.answer.view)} />
            ) : (
              <p>Choose a vehicle and press Render.</p>
            )}
          </section>
        </div>
      )}
    </>
  );
}
