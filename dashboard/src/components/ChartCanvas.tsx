import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// Only the pieces the usage page draws, so that the bundle carries no more of Chart.js than it needs.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

/**
 * One Chart.js chart. The canvas is an image to assistive technology, described by `label`; the page
 * puts the same figures in a table next to it.
 */
export function ChartCanvas({ config, label, testId }: { config: ChartConfiguration; label: string; testId: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const chart = new Chart(ref.current, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div class="chart-box">
      <canvas ref={ref} role="img" aria-label={label} data-testid={testId} />
    </div>
  );
}
