import { useState } from 'preact/hooks';
import { FormProblem, type ApiClient } from '../api.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { NewSecretPanel } from '../components/NewSecretPanel.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { RetryButton } from '../components/RetryButton.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime } from '../format.ts';
import { EVENT_TYPES, type CreatedWebhook, type EventType, type Webhook, type WebhookDelivery } from '../types.ts';
import { useLoad } from '../use-load.ts';

const MAX_ENDPOINTS = 5;

/** The organisation's webhook endpoints: add one (its secret shown once), rotate, delete, and each one's delivery log. */
export function WebhooksPage({ api }: { api: ApiClient }) {
  const hooks = useLoad(() => api.get<{ webhooks: Webhook[] }>('/webhooks'), []);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<EventType[]>([]);
  const [creating, setCreating] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [secret, setSecret] = useState<{ title: string; value: string; note?: string } | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [logOf, setLogOf] = useState<string | null>(null);

  async function create(e: Event) {
    e.preventDefault();
    if (url.trim() === '') {
      setActionError(new FormProblem('Give the address your receiver listens on (https://…).'));
      return;
    }
    setCreating(true);
    setActionError(null);
    try {
      const w = await api.send<CreatedWebhook>('POST', '/webhooks', { url: url.trim(), events: types });
      setSecret({ title: `Endpoint ${w.url} added`, value: w.secret });
      setUrl('');
      setTypes([]);
      setLogOf(w.id);
      hooks.reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setCreating(false);
    }
  }

  async function rotate(w: Webhook) {
    setActionError(null);
    try {
      const r = await api.send<{ secret: string; previous_secret_expires_at: string }>('POST', `/webhooks/${encodeURIComponent(w.id)}/rotate-secret`);
      setSecret({
        title: `New secret for ${w.url}`,
        value: r.secret,
        note: `Until ${formatDateTime(r.previous_secret_expires_at)} each delivery is signed by the old secret too, so your receiver can switch in the meantime.`,
      });
    } catch (err) {
      setActionError(err);
    }
  }

  async function remove() {
    if (!deleting) return;
    setDeleteBusy(true);
    setActionError(null);
    try {
      await api.send('DELETE', `/webhooks/${encodeURIComponent(deleting.id)}`);
      if (logOf === deleting.id) setLogOf(null);
      setDeleting(null);
      hooks.reload();
    } catch (err) {
      setActionError(err);
      setDeleting(null);
    } finally {
      setDeleteBusy(false);
    }
  }

  const list = hooks.data?.webhooks ?? [];
  const toggle = (t: EventType, on: boolean) => setTypes((ts) => (on ? [...ts, t] : ts.filter((x) => x !== t)));

  return (
    <>
      <PageHeading title="Webhooks">Webhooks</PageHeading>
      <p class="lead">
        The service tells your systems what happens to your organisation (a quota threshold reached, a key created or revoked, a
        contract changed, access disabled or restored) with a signed <code>POST</code> to each endpoint. Programs that cannot
        receive them can poll <code>GET /v1/events</code> instead.
      </p>

      <section class="card" aria-labelledby="add-webhook-title">
        <h2 id="add-webhook-title">Add an endpoint</h2>
        <form onSubmit={create}>
          <TextField
            id="webhook-url"
            label="Endpoint URL"
            name="url"
            required
            maxLength={2048}
            placeholder="https://hooks.example.com/vehicle-images"
            value={url}
            onValue={setUrl}
            hint="An https address on the public internet."
          />
          <fieldset class="segmented">
            <legend>Events (none ticked: all of them)</legend>
            {EVENT_TYPES.map((t) => (
              <label key={t}>
                <input type="checkbox" name="events" value={t} checked={types.includes(t)} onChange={(e) => toggle(t, e.currentTarget.checked)} />
                <code>{t}</code>
              </label>
            ))}
          </fieldset>
          <p>
            <button type="submit" class="button primary" disabled={creating || list.length >= MAX_ENDPOINTS}>
              {creating ? 'Adding…' : 'Add endpoint'}
            </button>
            {list.length >= MAX_ENDPOINTS && <span class="hint"> At most {MAX_ENDPOINTS} endpoints: delete one to add another.</span>}
          </p>
        </form>
        {secret && <NewSecretPanel title={secret.title} secret={secret.value} note={secret.note} onDone={() => setSecret(null)} />}
      </section>

      <ErrorNotice error={actionError} />
      <ErrorNotice error={hooks.error} />

      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Endpoints</h2>
        {!hooks.data && hooks.error ? (
          <p>
            Your endpoints could not be listed just now. <RetryButton busy={hooks.loading} onRetry={hooks.reload} label="Load the endpoints again" />
          </p>
        ) : hooks.loading && !hooks.data ? (
          <Notice kind="info">Loading endpoints…</Notice>
        ) : list.length === 0 ? (
          <p>No endpoint yet. Add one above.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Endpoints table">
            <table class="table stack" data-testid="webhooks">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Created</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((w) => (
                  <tr key={w.id} data-webhook-id={w.id}>
                    <th scope="row">
                      <code>{w.url}</code>
                    </th>
                    <td data-label="Events">{w.events.length === 0 ? 'All' : w.events.join(', ')}</td>
                    <td data-label="Created">{formatDateTime(w.created_at)}</td>
                    <td data-label="State">{w.disabled_at ? `Disabled ${formatDateTime(w.disabled_at)}: ${w.disabled_reason ?? ''}` : 'Active'}</td>
                    <td data-label="">
                      <div class="toolbar">
                        <button type="button" class="button small" aria-pressed={logOf === w.id} onClick={() => setLogOf(logOf === w.id ? null : w.id)}>
                          Deliveries<span class="visually-hidden"> of {w.url}</span>
                        </button>
                        <button type="button" class="button small" onClick={() => void rotate(w)}>
                          Rotate secret<span class="visually-hidden"> of {w.url}</span>
                        </button>
                        <button type="button" class="button danger small" onClick={() => setDeleting(w)}>
                          Delete<span class="visually-hidden"> {w.url}</span>
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {logOf && list.some((w) => w.id === logOf) && <DeliveryLog api={api} webhook={list.find((w) => w.id === logOf)!} />}

      <ConfirmDialog
        open={deleting !== null}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        busy={deleteBusy}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(null)}
      >
        <p>
          Nothing more is sent to <code>{deleting?.url}</code>, and its pending deliveries are dropped.
        </p>
      </ConfirmDialog>
    </>
  );
}

function DeliveryLog({ api, webhook }: { api: ApiClient; webhook: Webhook }) {
  const log = useLoad(() => api.get<{ deliveries: WebhookDelivery[] }>(`/webhooks/${encodeURIComponent(webhook.id)}/deliveries`), [webhook.id]);
  const rows = log.data?.deliveries ?? [];
  return (
    <section aria-labelledby="delivery-log-title">
      <h2 id="delivery-log-title">Deliveries to {webhook.url}</h2>
      <p>
        <RetryButton busy={log.loading} onRetry={log.reload} label="Refresh the deliveries" />
      </p>
      <ErrorNotice error={log.error} />
      {log.loading && !log.data ? (
        <Notice kind="info">Loading deliveries…</Notice>
      ) : rows.length === 0 ? (
        <p data-testid="no-deliveries">No delivery yet: events written from now on are sent here.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Deliveries table">
          <table class="table stack" data-testid="deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.event_id} data-event-id={d.event_id}>
                  <th scope="row">
                    <code>{d.event_id}</code>
                  </th>
                  <td data-label="Type">
                    <code>{d.type}</code>
                  </td>
                  <td data-label="Status" data-field="status">
                    {d.status}
                    {d.status === 'pending' && d.next_attempt_at ? ` (next ${formatDateTime(d.next_attempt_at)})` : ''}
                  </td>
                  <td data-label="Attempts">{d.attempts}</td>
                  <td data-label="Last attempt">{formatDateTime(d.last_attempt_at)}</td>
                  <td data-label="Answer">{d.last_status !== null ? `HTTP ${d.last_status}` : (d.last_error ?? '—')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
