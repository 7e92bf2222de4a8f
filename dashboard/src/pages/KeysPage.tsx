import { useEffect, useRef, useState } from 'preact/hooks';
import { FormProblem, type ApiClient } from '../api.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { NewKeyPanel } from '../components/NewKeyPanel.tsx';
import { RetryButton } from '../components/RetryButton.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime } from '../format.ts';
import type { ApiKey, CreatedKey } from '../types.ts';
import { useLoad } from '../use-load.ts';

/** The organisation's API keys: create (secret shown once), list, revoke with confirmation. */
export function KeysPage({ api }: { api: ApiClient }) {
  const keys = useLoad(() => api.get<{ keys: ApiKey[] }>('/keys'), []);
  const [name, setName] = useState('');
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const [revokedNote, setRevokedNote] = useState<string | null>(null);

  async function create(e: Event) {
    e.preventDefault();
    // spaces alone pass the field's `required`: said here, not sent
    if (name.trim() === '') {
      setCreateError(new FormProblem('Give the key a name (1 to 200 characters).'));
      return;
    }
    setCreating(true);
    setCreateError(null);
    setRevokedNote(null);
    try {
      const k = await api.send<CreatedKey>('POST', '/keys', { name: name.trim() });
      setCreated(k);
      setName('');
      keys.reload();
    } catch (err) {
      setCreateError(err);
    } finally {
      setCreating(false);
    }
  }

  async function revoke() {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError(null);
    try {
      await api.send('POST', `/keys/${encodeURIComponent(revoking.id)}/revoke`);
      setRevokedNote(`Key “${revoking.name ?? revoking.prefix}” is revoked: calls with it are refused from now on.`);
      refocus.current = true;
      if (created?.id === revoking.id) setCreated(null);
      setRevoking(null);
      keys.reload();
    } catch (err) {
      setRevokeError(err);
      setRevoking(null);
    } finally {
      setRevokeBusy(false);
    }
  }

  const list = keys.data?.keys ?? [];
  // The dialog gives focus back to the row's Revoke button, which the reloaded list then removes:
  // focus moves to the Active keys heading instead of falling to the page's body.
  const refocus = useRef(false);
  const activeHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!refocus.current || keys.loading) return;
    refocus.current = false;
    const at = document.activeElement;
    if (!at || at === document.body || !at.isConnected) activeHeading.current?.focus();
  }, [keys.data, keys.loading]);
  const active = list.filter((k) => !k.revoked_at);
  const revoked = list.filter((k) => k.revoked_at);

  return (
    <>
      <PageHeading title="API keys">API keys</PageHeading>
      <p class="lead">
        Your programs send a key in the <code>X-Api-Key</code> header. Give each program its own key, so that you can
        revoke one without stopping the others.
      </p>

      <section class="card" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <form class="inline-form" onSubmit={create}>
          <TextField
            id="key-name"
            label="Key name"
            name="name"
            required
            maxLength={200}
            placeholder="e.g. website-production"
            value={name}
            onValue={setName}
            hint="A name you will recognise in the list and in the usage tables."
          />
          <button type="submit" class="button primary" disabled={creating}>
            {creating ? 'Creating…' : 'Create key'}
          </button>
        </form>
        <ErrorNotice error={createError} />
        {created && <NewKeyPanel created={created} onDone={() => setCreated(null)} />}
      </section>

      {revokedNote && <Notice kind="success">{revokedNote}</Notice>}
      <ErrorNotice error={revokeError} />
      <ErrorNotice error={keys.error} />

      <section aria-labelledby="active-keys-title">
        <h2 id="active-keys-title" tabIndex={-1} ref={activeHeading}>
          Active keys
        </h2>
        {!keys.data && keys.error ? (
          // the list could not be read (the error is shown above): say so, never "no key"
          <p data-testid="keys-unknown">
            Your keys could not be listed just now. <RetryButton busy={keys.loading} onRetry={keys.reload} label="Load the keys again" />
          </p>
        ) : keys.loading && !keys.data ? (
          <Notice kind="info">Loading keys…</Notice>
        ) : active.length === 0 ? (
          <p>No active key. Create one above.</p>
        ) : (
          <KeyTable keys={active} onRevoke={setRevoking} />
        )}
      </section>

      {revoked.length > 0 && (
        <section aria-labelledby="revoked-keys-title">
          <h2 id="revoked-keys-title">Revoked keys</h2>
          <KeyTable keys={revoked} />
        </section>
      )}

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        busy={revokeBusy}
        onConfirm={() => void revoke()}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Every call made with <strong>{revoking?.name ?? 'this key'}</strong> (<code>{revoking?.prefix}…</code>) will be
          refused at once. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

function KeyTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke?: (k: ApiKey) => void }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={onRevoke ? 'Active keys table' : 'Revoked keys table'}>
      <table class="table stack" data-testid={onRevoke ? 'active-keys' : 'revoked-keys'}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">{onRevoke ? <span class="visually-hidden">Actions</span> : 'Revoked'}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} data-key-id={k.id}>
              <th scope="row">{k.name ?? <em>unnamed</em>}</th>
              <td data-label="Prefix">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Created">{formatDateTime(k.created_at)}</td>
              <td data-label="Last used" data-field="last_used_at">
                {formatDateTime(k.last_used_at)}
              </td>
              <td data-label={onRevoke ? '' : 'Revoked'}>
                {onRevoke ? (
                  <button type="button" class="button danger small" onClick={() => onRevoke(k)}>
                    Revoke<span class="visually-hidden"> {k.name ?? k.prefix}</span>
                  </button>
                ) : (
                  formatDateTime(k.revoked_at)
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
