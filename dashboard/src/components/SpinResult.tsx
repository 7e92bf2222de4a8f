import type { SpinAnswer } from '../playground/spin.ts';
import { AnswerDetails } from './AnswerDetails.tsx';
import { SpinViewer } from './SpinViewer.tsx';

/** A spin answer: the turning picture, then its warnings, curl line and JSON answer. */
export function SpinResult({ path, answer }: { path: string; answer: SpinAnswer }) {
  const v = answer.vehicle;
  const label = `${v.make} ${v.model} ${v.year}${v.variant ? ` ${v.variant}` : ''}`;
  const colour = (answer.options.color_name as string | null | undefined) ?? String(answer.options.color);
  return (
    <div class="render-result">
      <h3>
        Spin of {label}, {colour}
      </h3>
      <SpinViewer frames={answer.frames} label={label} />
      <AnswerDetails path={path} answer={answer} />
    </div>
  );
}
