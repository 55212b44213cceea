import { textStyles } from '../text-style.js';
import type { Percentiles } from './histogram.js';
import type { StatsSummary, StatusCounts } from './summarize-stats.js';
import { LOG_FORMAT_TO_ADD } from './unknown-figures.js';

/** Renders the human table of `logs stats`; colour only when asked (a TTY without NO_COLOR). */
export function renderStatsTable(summary: StatsSummary, options: { color: boolean }): string {
  const c = textStyles(options.color);
  const out: string[] = [];
  const head = (text: string) => out.push('', c.bold(text));
  const pct = (ratio: number) => `${(ratio * 100).toFixed(2)}%`;
  const sec = (value: number | null) => (value === null ? '-' : value.toFixed(3));
  const p = (x: Percentiles) => `p50 ${sec(x.p50)}  p90 ${sec(x.p90)}  p99 ${sec(x.p99)}  max ${sec(x.max)}`;
  // A time the format does not log (null) is unknown, not a row of dashes that reads like "none happened".
  const pOr = (x: Percentiles | null, variable: string) =>
    x === null ? `unknown (the log format has no ${variable})` : p(x);
  const paint = (code: string, text: string) =>
    code.startsWith('5')
      ? c.red(text)
      : code.startsWith('4')
        ? c.yellow(text)
        : code.startsWith('2')
          ? c.green(text)
          : text;

  out.push(
    `${c.bold('records')} ${n(summary.records)}   lines ${n(summary.lines)}   malformed ${n(summary.malformed.count)}` +
      (summary.filtered ? `   filtered out ${n(summary.filtered)}` : ''),
  );
  if (summary.timeRange) out.push(`time ${summary.timeRange.first} .. ${summary.timeRange.last}`);

  head('status');
  const classes = summary.statusClass;
  out.push(
    Object.entries(classes)
      .map(([k, v]) => paint(k, `${k} ${n(v)}`))
      .join('   '),
  );
  out.push(...rows(summary.status, summary.records, paint, n, pct));

  head('client closed (499)');
  const cc = summary.clientClosed;
  out.push(
    `${n(cc.count)} (${pct(cc.ratio)})   without an upstream attempt ${cc.noUpstream === null ? 'unknown' : n(cc.noUpstream)}`,
  );
  out.push(`  request time            ${pOr(cc.requestTime, '$request_time')}`);
  out.push(`  upstream connect time   ${pOr(cc.upstreamConnectTime, '$upstream_addr')}`);
  out.push(`  upstream response time  ${pOr(cc.upstreamResponseTime, '$upstream_addr')}`);

  if (summary.proxyGenerated && summary.upstreamReturned) {
    head('who made the response');
    out.push(
      `proxy-generated   ${n(summary.proxyGenerated.total)}  ${inline(summary.proxyGenerated.status, paint)}`,
    );
    out.push(
      `upstream-returned ${n(summary.upstreamReturned.total)}  ${inline(summary.upstreamReturned.status, paint)}`,
    );
  } else {
    head('who made the response');
    out.push('unknown: the log format has no $upstream_header_time (see "unknown" below)');
  }
  if (summary.upstreamStatus) {
    head('final upstream status');
    out.push(inline(summary.upstreamStatus, paint));
  }

  if (summary.upstreams.length) {
    head(
      `upstreams (retried requests ${summary.retriedRequests === null ? 'unknown' : n(summary.retriedRequests)})`,
    );
    for (const up of summary.upstreams) {
      out.push(
        `${c.cyan(up.address)}  requests ${n(up.requests)}  5xx ${n(up.status5xx)}  proxy-made ${up.proxyGenerated === null ? 'unknown' : n(up.proxyGenerated)}  retries ${n(up.retries)}`,
      );
      out.push(`  connect   ${p(up.connectTime)}`);
      out.push(`  header    ${p(up.headerTime)}`);
      out.push(`  response  ${p(up.responseTime)}`);
    }
    if (summary.upstreamOverflow) out.push(`(${n(summary.upstreamOverflow)} attempts on further addresses)`);
  }

  head('request time (s)');
  out.push(pOr(summary.latency.requestTime, '$request_time'));

  if (summary.topPaths5xx.paths.length) {
    head('top paths by 5xx');
    for (const { path, count } of summary.topPaths5xx.paths)
      out.push(`${c.red(String(count).padStart(8))}  ${path}`);
  }

  const points = summary.timeline.points;
  if (points.length) {
    head(
      `per ${summary.timeline.intervalSeconds}s (last ${Math.min(points.length, 10)} of ${points.length})`,
    );
    out.push('time                       records      2xx      3xx      4xx      5xx      499');
    for (const pt of points.slice(-10))
      out.push(
        `${pt.time.padEnd(26)}${[pt.records, pt['2xx'], pt['3xx'], pt['4xx'], pt['5xx'], pt['499']].map((v) => String(v).padStart(9)).join('')}`,
      );
  }

  if (summary.unknown.length) {
    head('unknown (the log format lacks the variables)');
    for (const { figure, needs } of summary.unknown) out.push(`${figure}: needs ${needs.join(', ')}`);
    out.push(`to log them all: ${LOG_FORMAT_TO_ADD}`);
  }

  if (summary.malformed.count) {
    head(`malformed lines (${n(summary.malformed.count)}; first ${summary.malformed.samples.length})`);
    for (const s of summary.malformed.samples) out.push(c.dim(`${s.input}:${s.line}: ${s.text}`));
  }
  return out.join('\n') + '\n';
}

function rows(
  counts: StatusCounts,
  total: number,
  paint: (code: string, text: string) => string,
  n: (v: number) => string,
  pct: (r: number) => string,
): string[] {
  return Object.entries(counts)
    .sort((x, y) => y[1] - x[1])
    .map(([code, count]) =>
      paint(code, `  ${code}  ${n(count).padStart(12)}  ${pct(total ? count / total : 0).padStart(8)}`),
    );
}

function inline(counts: StatusCounts, paint: (code: string, text: string) => string): string {
  const entries = Object.entries(counts).sort((x, y) => y[1] - x[1]);
  return entries.length ? entries.map(([k, v]) => paint(k, `${k}:${v}`)).join(' ') : '-';
}

/**
 * A count with thousands separators (1,234,567). Not toLocaleString: its first call loads ICU's
 * locale data, about 10 ms of every run of a command that on-call runs dozens of times.
 */
function n(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
