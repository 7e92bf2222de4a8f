import { curlLine } from '../playground/catalog.ts';
import type { Warning } from '../types.ts';
import { CopyButton } from './CopyButton.tsx';
import { Notice } from './Notice.tsx';

/** What every playground answer shows under its pictures: the warnings, the curl line, the JSON. */
export function AnswerDetails({ path, answer }: { path: string; answer: { warnings: Warning[] } }) {
  const curl = curlLine(location.origin, path);
  return (
    <>
      <h3>Warnings</h3>
      {answer.warnings.length === 0 ? (
        <p data-testid="warnings">None.</p>
      ) : (
        <ul data-testid="warnings">
          {answer.warnings.map((w) => (
            <li key={w.code}>
              <Notice kind="warning">
                <code>{w.code}</code>: {w.message}
              </Notice>
            </li>
          ))}
        </ul>
      )}
      <h3>The same call with curl</h3>
      <p class="hint">Put one of your keys in the shell variable KEY first; the dashboard never shows a stored key.</p>
      <pre class="code" id="pg-curl" data-testid="curl-line" tabIndex={0}>
        {curl}
      </pre>
      <CopyButton text={curl} label="Copy curl line" fallbackId="pg-curl" />
      <h3>JSON answer</h3>
      <pre class="code json" data-testid="json-answer" tabIndex={0} aria-label="JSON answer">
        {JSON.stringify(answer, null, 2)}
      </pre>
    </>
  );
}
