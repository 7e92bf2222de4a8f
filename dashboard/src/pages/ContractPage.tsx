import type { ApiClient } from '../api.ts';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { formatNumber, monthName } from '../format.ts';
import type { Contract, ContractAnswer } from '../types.ts';
import { useLoad } from '../use-load.ts';

/** The organisation's contract: the same figures as GET /v1/me. */
export function ContractPage({ api }: { api: ApiClient }) {
  const { data, error, loading } = useLoad(() => api.get<ContractAnswer>('/contract'), []);
  return (
    <>
      <PageHeading title="Contract">Contract</PageHeading>
      {loading && !data && <Notice kind="info">Loading the contract…</Notice>}
      <ErrorNotice error={error} />
      {data && (
        <p class="lead">
          The contract of <strong data-testid="org-name">{data.organization.name}</strong>: what your API keys may ask for and
          how often.
        </p>
      )}
      {data && data.contract === null && (
        <Notice kind="warning">
          <span data-testid="no-contract">
            Your organisation has no contract yet: every API call, the playground's included, is refused until your
            administrator sets one up.
          </span>
        </Notice>
      )}
      {data?.contract && <ContractFigures contract={data.contract} usage={data.usage} />}
    </>
  );
}

function ContractFigures({ contract, usage }: { contract: Contract; usage: ContractAnswer['usage'] }) {
  const usedShare = contract.monthly_quota > 0 ? Math.min(1, usage.requests / contract.monthly_quota) : 1;
  return (
    <>
      {!contract.active && (
        <Notice kind="warning">This contract is not active: API calls are refused until your administrator reactivates it.</Notice>
      )}
      <dl class="figures" data-testid="contract-figures">
        <div class="figure">
          <dt>Status</dt>
          <dd data-field="active">{contract.active ? 'Active' : 'Inactive'}</dd>
        </div>
        <div class="figure">
          <dt>Requests per minute (per key)</dt>
          <dd data-field="rpm_limit">{formatNumber(contract.rpm_limit)}</dd>
        </div>
        <div class="figure">
          <dt>Monthly quota</dt>
          <dd data-field="monthly_quota">{formatNumber(contract.monthly_quota)}</dd>
        </div>
        <div class="figure">
          <dt>Used in {monthName(usage.month)} (UTC)</dt>
          <dd data-field="requests">{formatNumber(usage.requests)}</dd>
        </div>
        <div class="figure">
          <dt>Remaining this month</dt>
          <dd data-field="remaining">{formatNumber(usage.remaining)}</dd>
        </div>
      </dl>
      <div class="meter-block">
        <label for="quota-meter">Share of the monthly quota used</label>
        <meter id="quota-meter" min={0} max={1} low={0.75} high={0.9} optimum={0} value={usedShare}>
          {Math.round(usedShare * 100)}%
        </meter>
        <span class="meter-figure">{(usedShare * 100).toFixed(1)}%</span>
      </div>
      <div class="two-col">
        <section class="card" aria-labelledby="categories-title">
          <h2 id="categories-title">Vehicle categories</h2>
          {contract.categories.length === 0 ? (
            <p>No category: the catalog shows you nothing.</p>
          ) : (
            <ul class="tags" data-field="categories">
              {contract.categories.map((c) => (
                <li key={c.id} data-slug={c.slug}>
                  {c.name}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section class="card" aria-labelledby="formats-title">
          <h2 id="formats-title">Image formats</h2>
          <ul class="tags" data-field="allowed_formats">
            {contract.allowed_formats.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
        </section>
        <section class="card" aria-labelledby="features-title">
          <h2 id="features-title">Features</h2>
          {contract.features.length === 0 ? (
            <p>None beyond the image calls.</p>
          ) : (
            <ul class="tags" data-field="features">
              {contract.features.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <p class="hint">
        Every admitted <code>/v1</code> call counts, playground renders included. The month is the UTC calendar month.
      </p>
    </>
  );
}
