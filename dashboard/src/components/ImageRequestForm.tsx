import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import type { ImageRequest, NamedColour } from '../playground/catalog.ts';
import { ColourPicker } from './ColourPicker.tsx';
import { VehiclePicker, type PickedVehicle } from './VehiclePicker.tsx';

const MIN_WIDTH = 200;
const MAX_WIDTH = 2400;

interface Props {
  api: ApiClient;
  colours: NamedColour[];
  /** The contract's formats; webp is chosen first where it is allowed. */
  formats: string[];
  busy: boolean;
  labelOf: (view: string) => string;
  onSubmit: (request: ImageRequest) => void;
  /** The browser refused a value (width out of range): it says why itself. */
  onInvalid: () => void;
}

/** The playground's vehicle and options: the catalog walk, then one image request's parameters. */
export function ImageRequestForm({ api, colours, formats, busy, labelOf, onSubmit, onInvalid }: Props) {
  const [picked, setPicked] = useState<PickedVehicle | null>(null);
  const [view, setView] = useState('');
  const [colour, setColour] = useState('red');
  const [shadow, setShadow] = useState(true);
  const [plate, setPlate] = useState('');
  const [format, setFormat] = useState(() => (formats.includes('webp') ? 'webp' : (formats[0] ?? 'webp')));
  const [width, setWidth] = useState(800);
  const [background, setBackground] = useState<'studio' | 'transparent'>('studio');

  useEffect(() => {
    // from the view chosen by then, not the one this render saw: a choice made before the effect ran stays
    if (picked) setView((v) => (picked.views.includes(v) ? v : (picked.views[0] ?? '')));
  }, [picked]);

  const request: ImageRequest | null =
    picked && view
      ? { make: picked.make, model: picked.model, year: picked.year, variant: picked.variant, view, color: colour, shadow, plate, format, width, background }
      : null;

  return (
    <form
      class="card form"
      onSubmit={(e) => {
        e.preventDefault();
        if (request) onSubmit(request);
      }}
      onInvalidCapture={onInvalid}
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
  );
}
