import type { ComponentChildren } from 'preact';
import { describeError } from '../api.ts';

/** Errors are announced at once (role=alert); information politely (role=status). */
export function Notice({ kind, children }: { kind: 'error' | 'info' | 'success' | 'warning'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  return <Notice kind="error">{describeError(error)}</Notice>;
}
