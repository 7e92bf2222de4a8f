import { useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import { ImageRequestForm } from '../components/ImageRequestForm.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { RenderResult } from '../components/RenderResult.tsx';
import { RetryButton } from '../components/RetryButton.tsx';
import { SpinResult } from '../components/SpinResult.tsx';
import { imagePath, type ImageRequest, type ViewEntry } from '../playground/catalog.ts';
import { spinPath, type SpinAnswer, type SpinRequest } from '../playground/spin.ts';
import { usePlaygroundSetup } from '../playground/use-playground-setup.ts';
import type { ImageAnswer } from '../types.ts';
import { VIEWS } from '../../../shared/views.ts';

const viewLabels: readonly ViewEntry[] = VIEWS;
const labelOf = (id: string) => viewLabels.find((v) => v.id === id)?.label ?? id;

type Result = { kind: 'image'; path: string; answer: ImageAnswer } | { kind: 'spin'; path: string; answer: SpinAnswer };

/** Walk the catalog, set the options, and see the image answer exactly as an API client would. */
export function PlaygroundPage({ api }: { api: ApiClient }) {
  const setup = usePlaygroundSetup(api);
  const [busy, setBusy] = useState(false);
  const [renderError, setRenderError] = useState<unknown>(null);
  const [result, setResult] = useState<Result | null>(null);
  /** Each answer's number: a new spin is a new viewer (its frame, loads and drag start afresh). */
  const [seq, setSeq] = useState(0);

  async function call(path: string, toResult: (answer: unknown) => Result) {
    setBusy(true);
    setRenderError(null);
    try {
      const answer = await api.get<unknown>(path);
      setResult(toResult(answer));
      setSeq((n) => n + 1);
    } catch (err) {
      setRenderError(err);
    } finally {
      setBusy(false);
    }
  }
  const render = (r: ImageRequest) => {
    const path = imagePath(r);
    return call(path, (answer) => ({ kind: 'image', path, answer: answer as ImageAnswer }));
  };
  const spin = (r: SpinRequest) => {
    const path = spinPath(r);
    return call(path, (answer) => ({ kind: 'spin', path, answer: answer as SpinAnswer }));
  };

  return (
    <>
      <PageHeading title="Playground">Playground</PageHeading>
      <Notice kind="warning">
        Playground calls are your organisation’s calls: each catalog step and each render counts against your monthly
        quota and your requests per minute, and appears in the usage as “Dashboard playground”. Downloading the picture
        itself is not counted.
      </Notice>
      <ErrorNotice error={setup.error} />
      {setup.state === 'loading' && setup.tries === 0 && <Notice kind="info">Loading the playground…</Notice>}
      {setup.state === 'no-contract' && (
        <Notice kind="warning">
          <span data-testid="playground-no-contract">
            Your organisation has no contract yet, so the playground cannot call the API. Your administrator sets one up.
          </span>
        </Notice>
      )}
      {setup.state === 'inactive' && (
        <Notice kind="warning">
          <span data-testid="playground-inactive">
            Your organisation's contract is not active, so the playground cannot call the API until your administrator
            reactivates it.
          </span>
        </Notice>
      )}
      {(setup.state === 'failed' || (setup.state === 'loading' && setup.tries > 0)) && (
        <p>
          <RetryButton busy={setup.state === 'loading'} onRetry={setup.retry} />
        </p>
      )}
      {setup.state === 'ready' && (
        <div class="playground">
          <ImageRequestForm
            api={api}
            colours={setup.colours}
            formats={setup.formats}
            busy={busy}
            labelOf={labelOf}
            onSubmit={(r) => void render(r)}
            onSpin={(r) => void spin(r)}
            // a value the browser refuses is said by the browser: an older answer's error would mislead
            onInvalid={() => setRenderError(null)}
          />
          <section class="card result" aria-labelledby="pg-result-title" aria-busy={busy}>
            <h2 id="pg-result-title">Result</h2>
            <ErrorNotice error={renderError} />
            {result?.kind === 'image' && (
              <RenderResult path={result.path} answer={result.answer} viewLabel={labelOf(result.answer.view)} />
            )}
            {result?.kind === 'spin' && <SpinResult key={seq} path={result.path} answer={result.answer} />}
            {!result && <p>Choose a vehicle and press Render, or Spin.</p>}
          </section>
        </div>
      )}
    </>
  );
}
