import { formatNumber, monthName } from '../format.ts';
import type { UsageAnswer } from '../types.ts';
import { CountTable } from './CountTable.tsx';

const KIND_LABELS: Record<string, string> = {
  catalog: 'Catalog and reference (makes, models, years, views, colours)',
  search: 'Search',
  image: 'Image JSON',
  batch: 'Batch images',
  account: 'Account (/v1/me, /v1/usage)',
};

type KeyRow = UsageAnswer['by_key'][number];
type KindRow = UsageAnswer['by_kind'][number];

const requestsColumn = { title: 'Requests', numeric: true, cell: (r: { requests: number }) => formatNumber(r.requests) };

/** By key and by kind of call, for one month. A null key is the dashboard's playground. */
export function UsageTables({ usage }: { usage: UsageAnswer }) {
  const monthLabel = monthName(usage.month);
  return (
    <div class="two-col">
      <CountTable<KeyRow>
        id="by-key"
        title="By key"
        monthLabel={monthLabel}
        rows={usage.by_key}
        rowKey={(k) => k.key_id ?? 'playground'}
        rowData={(k) => ['key-id', k.key_id ?? '']}
        columns={[
          { title: 'Key', cell: (k) => (k.key_id === null ? 'Dashboard playground' : (k.name ?? 'unnamed')) },
          { title: 'Prefix', cell: (k) => (k.prefix ? <code>{k.prefix}…</code> : '–') },
          requestsColumn,
        ]}
      />
      <CountTable<KindRow>
        id="by-kind"
        title="By kind of call"
        monthLabel={monthLabel}
        rows={usage.by_kind}
        rowKey={(k) => k.kind}
        rowData={(k) => ['kind', k.kind]}
        columns={[{ title: 'Kind', cell: (k) => KIND_LABELS[k.kind] ?? k.kind }, requestsColumn]}
      />
    </div>
  );
}
