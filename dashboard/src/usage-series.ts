// Turns two months of GET /v1/usage answers into the series the usage charts draw.
import type { UsageAnswer } from './types.ts';

export interface UsageSeries {
  labels: string[];
  thisDaily: (number | null)[];
  lastDaily: (number | null)[];
  thisCumulative: (number | null)[];
  lastCumulative: (number | null)[];
  quota: number[];
}

function daysIn(month: string): number {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y ?? 1970, m ?? 1, 0)).getUTCDate();
}

/** Per day of month (1..31): days not reached yet are null, so lines stop at today instead of dropping to 0. */
function byDayOfMonth(answer: UsageAnswer, length: number): (number | null)[] {
  const out: (number | null)[] = Array.from({ length }, () => null);
  for (const d of answer.days) {
    const day = Number(d.date.slice(8, 10));
    if (day >= 1 && day <= length) out[day - 1] = d.requests;
  }
  return out;
}

function cumulative(daily: (number | null)[]): (number | null)[] {
  let sum = 0;
  return daily.map((v) => {
    if (v === null) return null;
    sum += v;
    return sum;
  });
}

export function usageSeries(current: UsageAnswer, previous: UsageAnswer): UsageSeries {
  const length = Math.max(daysIn(current.month), daysIn(previous.month));
  const thisDaily = byDayOfMonth(current, length);
  const lastDaily = byDayOfMonth(previous, length);
  return {
    labels: Array.from({ length }, (_, i) => String(i + 1)),
    thisDaily,
    lastDaily,
    thisCumulative: cumulative(thisDaily),
    lastCumulative: cumulative(lastDaily),
    quota: Array.from({ length }, () => current.monthly_quota),
  };
}
