import { useEffect, useState } from 'preact/hooks';
import type { ImageAnswer } from '../types.ts';
import { AnswerDetails } from './AnswerDetails.tsx';

/** The picture of one render, then its warnings, curl line and JSON answer. */
export function RenderResult({ path, answer, viewLabel }: { path: string; answer: ImageAnswer; viewLabel: string }) {
  const [load, setLoad] = useState<'loading' | 'loaded' | 'failed'>('loading');
  useEffect(() => setLoad('loading'), [answer.image_url]);
  const v = answer.vehicle;
  const colour = (answer.options.color_name as string | null) ?? (answer.options.color as string);
  const alt = `${v.make} ${v.model} ${v.year}${v.variant ? ` ${v.variant}` : ''}, ${viewLabel.toLowerCase()} view, ${colour}`;
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
      <AnswerDetails path={path} answer={answer} />
    </div>
  );
}
