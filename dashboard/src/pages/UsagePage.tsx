import type { ChartConfiguration } from 'chart.js';
import { useMemo, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import { ChartCanvas } from '../components/ChartCanvas.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { UsageTables } from '../components/UsageTables.tsx';
import { formatNumber, monthName, utcMonth } from '../format.ts';
import type { UsageAnswer } from '../types.ts';
import { usageSeries, type UsageSeries } from '../usage-series.ts';
import { useLoad } from '../use-load.ts';

// Blue and orange stay apart for the common colour-vision deficiencies; the quota is dark red and dashed.
const THIS_COLOUR = '#1d4ed8';
const LAST_COLOUR = '#c2410c';
const QUOTA_COLOUR = '#7f1d1d';

export function UsagePage({ api }: { api: ApiClient }) {
  const thisMonth = utcMonth(0);
  const lastMonth = utcMonth(-1);
  const usage = useLoad(
    () => Promise.all([api.get<UsageAnswer>(`/usage?month=${thisMonth}`), api.get<UsageAnswer>(`/usage?month=${lastMonth}`)]),
    [thisMonth, lastMonth],
  );
  const [tableMonth, setTableMonth] = useState<'this' | 'last'>('this');
  const [showQuota, setShowQuota] = useState(true);
  const series = useMemo(() => (usage.data ? usageSeries(usage.data[0], usage.data[1]) : null), [usage.data]);

  return (
    <>
      <PageHeading title="Usage">Usage</PageHeading>
      <p class="lead">
        Admitted <code>/v1</code> calls of your organisation by UTC day, key and kind of call. Playground renders are
        listed under the key “Dashboard playground”.
      </p>
      <div class="toolbar">
        <button type="button" class="button secondary" onClick={usage.reload} disabled={usage.loading}>
          {usage.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <ErrorNotice error={usage.error} />
      {usage.loading && !usage.data && <Notice kind="info">Loading usage…</Notice>}
      {usage.data && series && (
        <>
          <dl class="figures" data-testid="usage-figures">
            <div class="figure">
              <dt>Requests in {monthName(usage.data[0].month)}</dt>
              <dd data-field="requests">{formatNumber(usage.data[0].requests)}</dd>
            </div>
            <div class="figure">
              <dt>Remaining</dt>
              <dd data-field="remaining">{formatNumber(usage.data[0].remaining)}</dd>
            </div>
            <div class="figure">
              <dt>Monthly quota</dt>
              <dd data-field="monthly_quota">{formatNumber(usage.data[0].monthly_quota)}</dd>
            </div>
            <div class="figure">
              <dt>Requests in {monthName(usage.data[1].month)}</dt>
              <dd data-field="last_requests">{formatNumber(usage.data[1].requests)}</dd>
            </div>
          </dl>
          <UsageCharts series={series} showQuota={showQuota} setShowQuota={setShowQuota} months={[usage.data[0].month, usage.data[1].month]} />
          <section aria-labelledby="breakdown-title">
            <h2 id="breakdown-title">Breakdown</h2>
            <fieldset class="segmented">
              <legend>Month</legend>
              {(['this', 'last'] as const).map((m) => (
                <label key={m}>
                  <input type="radio" name="table-month" value={m} checked={tableMonth === m} onChange={() => setTableMonth(m)} />
                  {monthName(usage.data![m === 'this' ? 0 : 1].month)}
                </label>
              ))}
            </fieldset>
            <UsageTables usage={usage.data[tableMonth === 'this' ? 0 : 1]} />
          </section>
        </>
      )}
    </>
  );
}

function UsageCharts({
  series,
  showQuota,
  setShowQuota,
  months,
}: {
  series: UsageSeries;
  showQuota: boolean;
  setShowQuota: (v: boolean) => void;
  months: [string, string];
}) {
  const [thisName, lastName] = [monthName(months[0]), monthName(months[1])];
  const daily = useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: series.labels,
        datasets: [
          { label: thisName, data: series.thisDaily, backgroundColor: THIS_COLOUR },
          { label: lastName, data: series.lastDaily, backgroundColor: LAST_COLOUR },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: 'Day of month (UTC)' } },
          y: { beginAtZero: true, title: { display: true, text: 'Requests' }, ticks: { precision: 0 } },
        },
      },
    }),
    [series, thisName, lastName],
  );
  const cumulative = useMemo<ChartConfiguration>(
    () => ({
      type: 'line',
      data: {
        labels: series.labels,
        datasets: [
          { label: `${thisName} (running total)`, data: series.thisCumulative, borderColor: THIS_COLOUR, backgroundColor: THIS_COLOUR, pointRadius: 2, tension: 0.1 },
          { label: `${lastName} (running total)`, data: series.lastCumulative, borderColor: LAST_COLOUR, backgroundColor: LAST_COLOUR, pointRadius: 2, tension: 0.1 },
          ...(showQuota
            ? [{ label: 'Monthly quota', data: series.quota, borderColor: QUOTA_COLOUR, backgroundColor: QUOTA_COLOUR, borderDash: [6, 4], pointRadius: 0, pointStyle: 'line' as const }]
            : []),
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        // legend entries drawn as each dataset's point style: dots for the totals, a line for the quota
        plugins: { legend: { labels: { usePointStyle: true, boxHeight: 8 } } },
        scales: {
          x: { title: { display: true, text: 'Day of month (UTC)' } },
          y: { beginAtZero: true, title: { display: true, text: 'Requests so far' }, ticks: { precision: 0 } },
        },
      },
    }),
    [series, thisName, lastName, showQuota],
  );
  const total = (xs: (number | null)[]) => xs.reduce<number>((s, v) => s + (v ?? 0), 0);
  return (
    <div class="charts">
      <section class="card" aria-labelledby="daily-title">
        <h2 id="daily-title">Requests per day</h2>
        <ChartCanvas
          config={daily}
          testId="daily-chart"
          label={`Bar chart of requests per day: ${formatNumber(total(series.thisDaily))} in ${thisName}, ${formatNumber(total(series.lastDaily))} in ${lastName}. The table below lists each day.`}
        />
        <details>
          <summary>Requests per day as a table</summary>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Requests per day table">
            <table class="table compact" data-testid="daily-table">
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">{thisName}</th>
                  <th scope="col">{lastName}</th>
                </tr>
              </thead>
              <tbody>
                {series.labels.map((d, i) => (
                  <tr key={d}>
                    <th scope="row">{d}</th>
                    <td>{series.thisDaily[i] ?? '–'}</td>
                    <td>{series.lastDaily[i] ?? '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </section>
      <section class="card" aria-labelledby="cumulative-title">
        <h2 id="cumulative-title">Running total against the monthly quota</h2>
        <label class="check">
          <input type="checkbox" checked={showQuota} onChange={(e) => setShowQuota(e.currentTarget.checked)} />
          Show the monthly quota line ({formatNumber(series.quota[0] ?? 0)})
        </label>
        <ChartCanvas
          config={cumulative}
          testId="cumulative-chart"
          label={`Line chart of the running total of requests this month and last month${showQuota ? `, with the monthly quota of ${formatNumber(series.quota[0] ?? 0)} as a dashed line` : ''}.`}
        />
      </section>
    </div>
  );
}
