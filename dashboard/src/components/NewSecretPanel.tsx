import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from './CopyButton.tsx';

/**
 * The one moment a webhook signing secret is on screen (a new endpoint's, or a rotation's): it takes
 * focus so that a screen reader reads the warning, and lives only in this component's props.
 */
export function NewSecretPanel({ title, secret, note, onDone }: { title: string; secret: string; note?: string; onDone: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [secret]);
  return (
    <div class="new-key" ref={ref} tabIndex={-1} aria-labelledby="new-secret-title" role="group" data-testid="new-secret">
      <h3 id="new-secret-title">{title}</h3>
      <p class="warning-text">
        <strong>Copy this signing secret now. It will not be shown again.</strong> Your receiver verifies each delivery's{' '}
        <code>webhook-signature</code> with it (any Standard Webhooks library does).
        {note ? ` ${note}` : ''}
      </p>
      <div class="secret-row">
        <code id="new-secret-value" class="secret" data-testid="new-secret-value">
          {secret}
        </code>
      </div>
      <div class="secret-actions">
        <CopyButton text={secret} label="Copy secret" fallbackId="new-secret-value" />
        <button type="button" class="button secondary" onClick={onDone}>
          I have stored it — hide the secret
        </button>
      </div>
    </div>
  );
}
