import { useState } from 'preact/hooks';

/**
 * Copies `text` to the clipboard. Where the Clipboard API is refused (no secure context, permissions)
 * it selects the text of `fallbackId` so that Ctrl+C finishes the job, and says so.
 */
export function CopyButton({ text, label, fallbackId }: { text: string; label: string; fallbackId: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      const el = document.getElementById(fallbackId);
      if (el) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = getSelection();
        sel?.removeAllRanges();
        sel?.addRange(range);
      }
      setState('select');
    }
  }
  return (
    <span class="copy">
      <button type="button" class="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {state === 'copied' ? 'Copied.' : state === 'select' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
      </span>
    </span>
  );
}
