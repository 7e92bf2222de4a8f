import { useEffect, useRef } from 'preact/hooks';
import type { CreatedKey } from '../types.ts';
import { CopyButton } from './CopyButton.tsx';

/**
 * The one moment the full secret is on screen. It takes focus so that a screen reader reads the warning,
 * and it lives only in this component's props: never stored, never put in a URL.
 */
export function NewKeyPanel({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [created.id]);
  return (
    <div class="new-key" ref={ref} tabIndex={-1} aria-labelledby="new-key-title" role="group" data-testid="new-key">
      <h3 id="new-key-title">Key “{created.name ?? created.prefix}” created</h3>
      <p class="warning-text">
        <strong>Copy this key now. It will not be shown again</strong> — only its prefix is kept for display. If you lose
        it, revoke it and create another.
      </p>
      <div class="secret-row">
        <code id="new-key-secret" class="secret" data-testid="new-key-secret">
          {created.key}
        </code>
      </div>
      <div class="secret-actions">
        <CopyButton text={created.key} label="Copy key" fallbackId="new-key-secret" />
        <button type="button" class="button secondary" onClick={onDone}>
          I have stored it — hide the key
        </button>
      </div>
    </div>
  );
}
