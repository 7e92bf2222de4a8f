import { formatNumber } from '../format.ts';
import type { UsageAnswer } from '../types.ts';

const KIND_LABELS: Record<string, string> = {
  catalog: 'Catalog and reference (makes, models, years, views, colours)',
  search: 'Search',
  image: 'Image JSON',
  batch: 'Batch images',
  account: 'Account (/v1/me, /v1/usage)',
};

/** By key and by kind of call, for one month. A null key is the dashboard's playground. */
export function UsageTables({ usage }: { usage: UsageAnswer }) {
  return (
    <div class="two-col">
      <div>
        <h3 id="by-key-title">By key</h3>
        {usage.by_key.length === 0 ? (
          <p>No calls this month.</p>
        ) : (
          <div class="table-wrap">
            <table class="table" aria-labelledby="by-key-title" data-testid="by-key">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Prefix</th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {usage.by_key.map((k) => (
                  <tr key={k.key_id ?? 'playground'} data-key-id={k.key_id ?? ''}>
                    <th scope="row">{k.key_id === null ? 'Dashboard playground' : (k.name ?? 'unnamed')}</th>
                    <td>{k.prefix ? <code>{k.prefix}…</code> : '–'}</td>
                    <td class="num">{formatNumber(k.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      <div>
        <h3 id="by-kind-title">By kind of call</h3>
        {usage.by_kind.length === 0 ? (
          <p>No calls this month.</p>
        ) : (
          <div class="table-wrap">
            <table class="table" aria-labelledby="by-kind-title" data-testid="by-kind">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {usage.by_kind.map((k) => (
                  <tr key={k.kind} data-kind={k.kind}>
                    <th scope="row">{KIND_LABELS[k.kind] ?? k.kind}</th>
                    <td class="num">{formatNumber(k.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </div>
  );
}
