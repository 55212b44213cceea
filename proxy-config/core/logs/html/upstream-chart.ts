import type { Percentiles } from '../histogram.js';
import type { UpstreamSummary } from '../summarize-stats.js';
import { countTicks, FONT, HEAD, panelHead, ROW } from './row-chart.js';
import { decadeLabel, logTicks } from './scales.js';
import { esc, exactCount, fitLabel, r, seconds, shortCount, svgText } from './svg-text.js';
import { CHART_WIDTH } from './time-chart.js';

/** One row of the upstream chart: an address (or all requests) with its percentiles and counts. */
export interface UpstreamRow {
  name: string;
  timing: Percentiles;
  /** Absent on the all-requests row, whose 5xx and retries are counted per request elsewhere. */
  attempts?: { requests: number; proxy5xx: number; upstream5xx: number; retries: number };
}

const NAME_W = 190;
/** Panels: [left, right] in px: latency (log scale), 5xx attempts, retries. */
const LAT: [number, number] = [NAME_W + 14, 560];
const ERR: [number, number] = [600, 770];
const RET: [number, number] = [810, CHART_WIDTH - 8];

/**
 * The rows: all requests first (when $request_time is logged), then each address. Without
 * $upstream_header_time nobody can tell who made a 5xx (`split` false): all of them count as returned.
 */
export function upstreamRows(
  upstreams: UpstreamSummary[],
  overall: Percentiles | null,
  split: boolean,
): UpstreamRow[] {
  const rows: UpstreamRow[] = overall ? [{ name: 'all requests', timing: overall }] : [];
  for (const u of upstreams)
    rows.push({
      name: u.address,
      timing: u.responseTime,
      attempts: {
        requests: u.requests,
        proxy5xx: split ? (u.proxyGenerated ?? 0) : 0,
        upstream5xx: split ? u.status5xx - (u.proxyGenerated ?? 0) : u.status5xx,
        retries: u.retries,
      },
    });
  return rows;
}

/**
 * One row per upstream: p50/p90/p99 of the upstream response time on a log axis, the 5xx attempts
 * (nginx-made and upstream-returned, stacked) and the retries, each with its count. Rows have a fixed
 * height and names are cut to their column, so no two labels meet whatever the number of rows.
 */
export function upstreamChart(rows: UpstreamRow[], split: boolean): string {
  const bottom = HEAD + rows.length * ROW;
  const values = rows
    .flatMap((row) => [row.timing.p50, row.timing.p99])
    .filter((v): v is number => v !== null);
  const decades = logTicks(Math.min(...values, 1), Math.max(...values, 0.001));
  const lo = Math.log10(decades[0]!);
  const hi = Math.log10(decades[decades.length - 1]!);
  const lx = (v: number) =>
    LAT[0] + ((Math.log10(Math.max(v, decades[0]!)) - lo) / (hi - lo)) * (LAT[1] - LAT[0]);
  const errMax = Math.max(
    0,
    ...rows.map((row) => (row.attempts ? row.attempts.proxy5xx + row.attempts.upstream5xx : 0)),
  );
  const retMax = Math.max(0, ...rows.map((row) => row.attempts?.retries ?? 0));
  const err = countTicks(ERR, errMax);
  const ret = countTicks(RET, retMax);
  const out: string[] = [
    panelHead(
      LAT,
      'response time, s (log scale)',
      decades.map((d) => ({ x: lx(d), label: decadeLabel(d) })),
      bottom,
    ),
    panelHead(ERR, '5xx attempts', err.ticks, bottom),
    panelHead(RET, 'retries', ret.ticks, bottom),
  ];
  rows.forEach((row, i) => {
    const top = HEAD + i * ROW;
    const mid = top + ROW / 2;
    const t = row.timing;
    const a = row.attempts;
    const detail =
      `${row.name}: p50 ${seconds(t.p50)}, p90 ${seconds(t.p90)}, p99 ${seconds(t.p99)}, max ${seconds(t.max)}` +
      (a
        ? `; ${exactCount(a.requests)} attempts, ${
            split
              ? `5xx made by nginx ${exactCount(a.proxy5xx)}, 5xx returned by the upstream ${exactCount(a.upstream5xx)}`
              : `5xx ${exactCount(a.upstream5xx)} (who made them: unknown)`
          }, retries ${exactCount(a.retries)}`
        : `; ${exactCount(t.count)} requests`);
    if (i % 2 === 1) out.push(`<rect class="band" x="0" y="${top}" width="${CHART_WIDTH}" height="${ROW}"/>`);
    out.push(svgText(NAME_W, mid + 4, fitLabel(row.name, NAME_W - 4, FONT), { anchor: 'end', cls: 'name' }));
    if (t.p50 !== null && t.p90 !== null && t.p99 !== null) {
      out.push(`<line class="range" x1="${r(lx(t.p50))}" x2="${r(lx(t.p99))}" y1="${mid}" y2="${mid}"/>`);
      out.push(
        `<rect class="q-p99" x="${r(lx(t.p99) - 2)}" y="${mid - 6}" width="4" height="12" data-quantile="p99" data-value="${t.p99}"/>`,
      );
      out.push(
        `<path class="q-p90" d="M${r(lx(t.p90))} ${mid - 5} l5 5 l-5 5 l-5 -5 Z" data-quantile="p90" data-value="${t.p90}"/>`,
      );
      out.push(
        `<circle class="q-p50" cx="${r(lx(t.p50))}" cy="${mid}" r="4.5" data-quantile="p50" data-value="${t.p50}"/>`,
      );
    } else out.push(svgText(LAT[0], mid + 4, 'no timing logged', { cls: 'muted' }));
    if (a) {
      const p = err.x(a.proxy5xx) - ERR[0];
      const u = err.x(a.upstream5xx) - ERR[0];
      if (p > 0)
        out.push(`<rect class="s-proxy5xx" x="${ERR[0]}" y="${mid - 6}" width="${r(p)}" height="12"/>`);
      if (u > 0)
        out.push(
          `<rect class="${split ? 's-upstream5xx' : 's-all5xx'}" x="${r(ERR[0] + p)}" y="${mid - 6}" width="${r(u)}" height="12"/>`,
        );
      const total = a.proxy5xx + a.upstream5xx;
      out.push(
        svgText(ERR[0] + p + u + 4, mid + 4, shortCount(total), {
          cls: 'count',
          tip: `${exactCount(total)} 5xx`,
        }),
      );
      const rw = ret.x(a.retries) - RET[0];
      if (rw > 0)
        out.push(`<rect class="s-retries" x="${RET[0]}" y="${mid - 6}" width="${r(rw)}" height="12"/>`);
      out.push(svgText(RET[0] + rw + 4, mid + 4, shortCount(a.retries), { cls: 'count' }));
    }
    out.push(
      `<rect class="hit" x="0" y="${top}" width="${CHART_WIDTH}" height="${ROW}" data-row="${esc(row.name)}" data-tip="${esc(detail)}"/>`,
    );
  });
  out.push(`<line class="axis" x1="${LAT[0]}" x2="${LAT[1]}" y1="${HEAD - 6}" y2="${HEAD - 6}"/>`);
  out.push(`<line class="axis" x1="${ERR[0]}" x2="${ERR[1]}" y1="${HEAD - 6}" y2="${HEAD - 6}"/>`);
  out.push(`<line class="axis" x1="${RET[0]}" x2="${RET[1]}" y1="${HEAD - 6}" y2="${HEAD - 6}"/>`);
  return `<svg class="chart" id="upstream-chart" viewBox="0 0 ${CHART_WIDTH} ${bottom + 4}" role="img" aria-label="response time percentiles, 5xx and retries per upstream">${out.join('')}</svg>`;
}
