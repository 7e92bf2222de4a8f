import { ASPECTS, MARGIN_MAX, MARGIN_MIN, type Aspect, type FramingChoice } from '../playground/framing.ts';

/**
 * Framing, margin and aspect of the playground's requests. The margin only counts with `fit`, so it is
 * disabled (keeping its value) under `studio`.
 */
export function FramingFields({ value, onChange }: { value: FramingChoice; onChange: (f: FramingChoice) => void }) {
  const fit = value.framing === 'fit';
  return (
    <>
      <div class="field-row">
        <div class="field">
          <label for="pg-framing">Framing</label>
          <select
            id="pg-framing"
            value={value.framing}
            aria-describedby="pg-framing-hint"
            onChange={(e) => onChange({ ...value, framing: e.currentTarget.value === 'fit' ? 'fit' : 'studio' })}
          >
            <option value="studio">studio</option>
            <option value="fit">fit</option>
          </select>
          <span id="pg-framing-hint" class="hint">
            fit: the vehicle fills the frame
          </span>
        </div>
        <div class="field">
          <label for="pg-aspect">Aspect</label>
          <select id="pg-aspect" value={value.aspect} onChange={(e) => onChange({ ...value, aspect: e.currentTarget.value as Aspect })}>
            {ASPECTS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="field-row">
        <div class="field">
          <label for="pg-margin">Margin (%)</label>
          <input
            id="pg-margin"
            type="number"
            inputMode="numeric"
            min={MARGIN_MIN}
            max={MARGIN_MAX}
            step={1}
            required
            disabled={!fit}
            value={value.margin}
            aria-describedby="pg-margin-hint"
            onInput={(e) => {
              const n = e.currentTarget.valueAsNumber;
              if (Number.isFinite(n)) onChange({ ...value, margin: Math.round(n) });
            }}
          />
          <span id="pg-margin-hint" class="hint">
            {MARGIN_MIN} to {MARGIN_MAX}, with fit framing only
          </span>
        </div>
      </div>
    </>
  );
}
