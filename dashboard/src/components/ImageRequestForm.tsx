import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import type { ImageRequest, NamedColour } from '../playground/catalog.ts';
import { DEFAULT_FRAMING_CHOICE, type FramingChoice } from '../playground/framing.ts';
import { SPIN_FRAME_COUNTS, SPIN_FRAMES_DEFAULT, type SpinRequest } from '../playground/spin.ts';
import { ColourPicker } from './ColourPicker.tsx';
import { FramingFields } from './FramingFields.tsx';
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
  /** A spin of the chosen vehicle with the same options (no view needed). */
  onSpin: (request: SpinRequest) => void;
  /** The browser refused a value (width out of range): it says why itself. */
  onInvalid: () => void;
}

/** The playground's vehicle and options: the catalog walk, then one image request's parameters. */
export function ImageRequestForm({ api, colours, formats, busy, labelOf, onSubmit, onSpin, onInvalid }: Props) {
  const [picked, setPicked] = useState<PickedVehicle | null>(null);
  const [view, setView] = useState('');
  const [colour, setColour] = useState('red');
  const [shadow, setShadow] = useState(true);
  const [plate, setPlate] = useState('');
  const [format, setFormat] = useState(() => (formats.includes('webp') ? 'webp' : (formats[0] ?? 'webp')));
  const [width, setWidth] = useState(800);
  const [background, setBackground] = useState<'studio' | 'transparent'>('studio');
  const [framing, setFraming] = useState<FramingChoice>(DEFAULT_FRAMING_CHOICE);
  const [frames, setFrames] = useState<number>(SPIN_FRAMES_DEFAULT);

  useEffect(() => {
    // from the view chosen by then, not the one this render saw: a choice made before the effect ran stays
    if (picked) setView((v) => (picked.views.includes(v) ? v : (picked.views[0] ?? '')));
  }, [picked]);

  const options = { color: colour, shadow, plate, format, width, background, ...framing };
  const request: ImageRequest | null =
    picked && view ? { make: picked.make, model: picked.model, year: picked.year, variant: picked.variant, view, ...options } : null;
  const spin: SpinRequest | null = picked ? { vehicleId: picked.id, frames, ...options } : null;

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
      <FramingFields value={framing} onChange={setFraming} />
      <label class="check">
        <input type="checkbox" checked={shadow} onChange={(e) => setShadow(e.currentTarget.checked)} />
        Studio floor shadow
      </label>
      <button type="submit" class="button primary" disabled={!request || busy}>
        {busy ? 'Rendering…' : 'Render'}
      </button>
      <fieldset class="spin-fields">
        <legend>Spin</legend>
        <p class="hint" id="pg-spin-hint">
          Frames all around the chosen vehicle (no view needed), with the options above; at most 1600 px wide.
        </p>
        <div class="spin-row">
          <div class="field">
            <label for="pg-frames">Frames</label>
            <select id="pg-frames" value={String(frames)} onChange={(e) => setFrames(Number(e.currentTarget.value))}>
              {SPIN_FRAME_COUNTS.map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            class="button"
            disabled={!spin || busy}
            aria-describedby="pg-spin-hint"
            onClick={(e) => {
              // the browser's own checks of the fields (width, margin), as Render gets them on submit
              if (spin && e.currentTarget.form?.reportValidity()) onSpin(spin);
            }}
          >
            Spin
          </button>
        </div>
      </fieldset>
    </form>
  );
}
