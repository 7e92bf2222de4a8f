import { useState } from 'preact/hooks';
import type { NamedColour } from '../playground/catalog.ts';

interface Props {
  colours: NamedColour[];
  /** A colour name, or `#RRGGBB` for a custom colour. */
  value: string;
  onChange: (value: string) => void;
}

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;

export function normaliseHex(v: string): string | null {
  const m = HEX.exec(v.trim());
  if (!m) return null;
  const h = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return `#${h.toUpperCase()}`;
}

/**
 * The named colours as a radio group of swatches (arrow keys move between them, the name is the label),
 * then "Custom" with a hex field and the browser's colour chooser kept in step.
 */
export function ColourPicker({ colours, value, onChange }: Props) {
  const custom = value.startsWith('#');
  // what is typed in the hex field and not yet taken (null: the field shows the colour in use); kept on
  // every keystroke, so a re-render meanwhile (a picture arriving) never puts older text back
  const [draft, setDraft] = useState<string | null>(null);
  // the text refused when last committed (blur or Enter), said next to the field until a good one is
  const [problem, setProblem] = useState<string | null>(null);
  // a start distinct from every named swatch, so "custom" never looks like one of them
  const customHex = custom ? value : '#1F6F8B';
  return (
    <fieldset class="swatches">
      <legend>Colour</legend>
      <div class="swatch-row">
        {colours.map((c) => (
          <label key={c.name} class="swatch" title={`${c.name} ${c.hex}`}>
            <input type="radio" name="colour" value={c.name} checked={value === c.name} onChange={() => onChange(c.name)} />
            <span class="swatch-chip" data-hex={c.hex} ref={(el) => el?.style.setProperty('--chip', c.hex)} aria-hidden="true" />
            <span class="swatch-name">{c.name}</span>
          </label>
        ))}
        <label class="swatch">
          <input type="radio" name="colour" value="custom" checked={custom} onChange={() => onChange(customHex)} />
          <span class="swatch-chip" ref={(el) => el?.style.setProperty('--chip', customHex)} aria-hidden="true" />
          <span class="swatch-name">custom</span>
        </label>
      </div>
      {custom && (
        <div class="custom-colour">
          <div class="field">
            <label for="colour-hex">Hex colour</label>
            <input
              id="colour-hex"
              value={draft ?? value}
              maxLength={7}
              spellcheck={false}
              aria-invalid={problem !== null}
              aria-describedby={problem !== null ? 'colour-hex-hint colour-hex-problem' : 'colour-hex-hint'}
              onInput={(e) => setDraft(e.currentTarget.value)}
              onChange={(e) => {
                const text = e.currentTarget.value;
                const hex = normaliseHex(text);
                // what was typed stays, with the problem said, rather than silently turning back
                if (hex) {
                  setDraft(null);
                  setProblem(null);
                  onChange(hex);
                } else {
                  setDraft(text);
                  setProblem(text);
                }
              }}
            />
            <span id="colour-hex-hint" class="hint">
              3 or 6 hex digits, e.g. #1F6F8B
            </span>
            {problem !== null && (
              <p id="colour-hex-problem" class="field-error" role="alert">
                “{problem}” is not a hex colour; the picture keeps {value} until you enter 3 or 6 hex digits.
              </p>
            )}
          </div>
          <div class="field">
            <label for="colour-chooser">Pick a colour</label>
            <input id="colour-chooser" type="color" value={value.toLowerCase()} onInput={(e) => onChange(e.currentTarget.value.toUpperCase())} />
          </div>
        </div>
      )}
    </fieldset>
  );
}
