import type { ComponentChildren, InputHTMLAttributes } from 'preact';

interface Props {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password';
  name?: string;
  autocomplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  placeholder?: string;
  /** Shown under the input and read with it (aria-describedby). */
  hint?: ComponentChildren;
}

/** A labelled text input: the label names it, the optional hint describes it. */
export function TextField({ id, label, value, onValue, hint, type = 'text', ...input }: Props) {
  const hintId = hint ? `${id}-hint` : undefined;
  // preact types an input's attributes as a union keyed by `type`, which a union-typed `type` cannot
  // pick a member of; these three types take the same attributes
  const attributes = { id, type, ...input, 'aria-describedby': hintId } as InputHTMLAttributes<HTMLInputElement>;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input {...attributes} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
      {hint && (
        <span id={hintId} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}
