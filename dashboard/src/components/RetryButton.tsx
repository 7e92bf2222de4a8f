/**
 * "Try again" after a failed load. It stays while the retry works, marked busy with aria-disabled
 * (a disabled button would drop the keyboard's focus to the page) and ignoring clicks meanwhile.
 */
export function RetryButton({ busy, onRetry, label = 'Try again' }: { busy: boolean; onRetry: () => void; label?: string }) {
  return (
    <button type="button" class="button" aria-disabled={busy ? 'true' : undefined} onClick={() => !busy && onRetry()}>
      {busy ? 'Loading…' : label}
    </button>
  );
}
