import { useEffect, useState } from 'preact/hooks';
import { curlLine } from '../playground/catalog.ts';
import type { ImageAnswer } from '../types.ts';
import { CopyButton } from './CopyButton.tsx';
import { Notice } from './Notice.tsx';

/** The picture, the warnings, the JSON answer and the curl line of one render. */
export function RenderResult({ path, answer, viewLabel }: { path: string; answer: ImageAnswer; viewLabel: string }) {
  const [load, setLoad] = useState<'loading' | 'loaded' | 'failed'>('loading');
  useEffect(() => setLoad('loading'), [answer.image_url]);
  const v = answer.vehicle;
  const colour = (answer.options.color_name as string | null) ?? (answer.options.color as string);
  const alt = `${v.make} ${v.model} ${v.year}${v.variant ? ` ${v.variant}` : ''}, ${viewLabel.toLowerCase()} view, ${colour}`;
  const curl = curlLine(location.origin, path);
  return (
    <div class="render-result">
      <figure class="picture">
        <img
          src={answer.image_url}
          alt={alt}
          data-testid="playground-image"
          onLoad={() => setLoad('loaded')}
          onError={() => setLoad('failed')}
        />
        <figcaption>
          {alt} · {String(answer.options.format)} · {String(answer.options.width)} px wide ·{' '}
          <a href={answer.image_url} target="_blank" rel="noopener">
            open the picture<span class="visually-hidden"> in a new tab</span>
          </a>
        </figcaption>
      </figure>
      <p role="status" class="hint">
        {load === 'loading' ? 'Loading the picture…' : load === 'failed' ? 'The picture could not be loaded.' : ''}
      </p>
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
    </div>
  );
}
