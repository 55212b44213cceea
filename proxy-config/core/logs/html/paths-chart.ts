import { countTicks, FONT, HEAD, panelHead, ROW } from './row-chart.js';
import { esc, exactCount, fitLabel, r, shortCount, svgText } from './svg-text.js';
import { CHART_WIDTH } from './time-chart.js';

/** Horizontal bars with a count each: the paths with the most 5xx. */
export function pathsChart(paths: Array<{ path: string; count: number }>): string {
  const nameW = 380;
  const bars: [number, number] = [nameW + 14, CHART_WIDTH - 8];
  const max = Math.max(0, ...paths.map((p) => p.count));
  const axis = countTicks(bars, max);
  const bottom = HEAD + paths.length * ROW;
  const out = [panelHead(bars, '5xx responses', axis.ticks, bottom)];
  paths.forEach((p, i) => {
    const top = HEAD + i * ROW;
    const mid = top + ROW / 2;
    const w = axis.x(p.count) - bars[0];
    out.push(svgText(nameW, mid + 4, fitLabel(p.path, nameW - 4, FONT), { anchor: 'end', cls: 'name' }));
    out.push(
      `<rect class="s-all5xx" x="${bars[0]}" y="${mid - 6}" width="${r(w)}" height="12" data-count="${p.count}"/>`,
    );
    out.push(svgText(bars[0] + w + 4, mid + 4, shortCount(p.count), { cls: 'count' }));
    out.push(
      `<rect class="hit" x="0" y="${top}" width="${CHART_WIDTH}" height="${ROW}" data-tip="${esc(`${p.path}: ${exactCount(p.count)} 5xx`)}"/>`,
    );
  });
  out.push(`<line class="axis" x1="${bars[0]}" x2="${bars[1]}" y1="${HEAD - 6}" y2="${HEAD - 6}"/>`);
  return `<svg class="chart" id="paths-chart" viewBox="0 0 ${CHART_WIDTH} ${bottom + 4}" role="img" aria-label="top paths by 5xx">${out.join('')}</svg>`;
}
