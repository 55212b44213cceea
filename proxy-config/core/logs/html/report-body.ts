import { describeDamage } from '../log-damage.js';
import { LOG_FORMAT_TO_ADD } from '../unknown-figures.js';
import type { StatsSummary } from '../summarize-stats.js';
import { esc, exactCount, fitLabel, legend, seconds } from './svg-text.js';
import { bucketTimeline, type TimeBuckets } from './time-buckets.js';
import { bucketUnit, timeChart } from './time-chart.js';
import { pathsChart } from './paths-chart.js';
import { upstreamChart, upstreamRows } from './upstream-chart.js';

/** Most upstream addresses the report draws (the busiest); the rest are named as a count. */
export const REPORT_UPSTREAMS = 50;
/** Longest text of the log (a path, a malformed line, an input name) the report quotes. */
const QUOTE_CHARS = 300;
/** Most input names the report lists (a shell glob may give thousands). */
const QUOTED_INPUTS = 10;

const cut = (text: string) => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);
const quote = (text: string) => esc(cut(text));
const utc = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;
const percent = (ratio: number) => `${(ratio * 100).toFixed(2)} %`;

/** The busiest upstreams, their addresses cut to a length a page can quote. */
function drawnUpstreams(s: StatsSummary) {
  return s.upstreams.slice(0, REPORT_UPSTREAMS).map((u) => ({ ...u, address: cut(u.address) }));
}

/**
 * True when the format does not log the variable, so a figure needing it is unknown. Only for variables
 * no other figure names: a figure needing two variables is listed when either is missing.
 */
function lacks(summary: StatsSummary, variable: string): boolean {
  return summary.unknown.some((u) => u.needs.includes(variable));
}

function unknownNote(what: string, needs: string[]): string {
  return `<p class="unknown-note" data-unknown="${esc(what)}">Unknown: ${esc(what)}. The log's format has no ${needs
    .map((n) => `<code>${esc(n)}</code>`)
    .join(', ')}, so nothing is drawn rather than zeros.</p>`;
}

/** A notice that the counts are partial: the damaged `.gz` inputs, as the run said them on stderr. */
function damagedNote(s: StatsSummary): string {
  if (s.damaged.length === 0) return '';
  const listed = s.damaged
    .slice(0, QUOTED_INPUTS)
    .map((d) => esc(describeDamage({ ...d, input: cut(d.input) })));
  const more = s.damaged.length - listed.length;
  return `<p class="unknown-note" id="damaged">Partial counts: ${listed.join('; ')}${more > 0 ? `; and ${more} more damaged` : ''}.</p>`;
}

function tile(name: string, label: string, value: string, hint?: string): string {
  return `<div class="tile"><dt>${esc(label)}</dt><dd data-metric="${name}"${hint ? ` title="${esc(hint)}"` : ''}>${esc(value)}</dd></div>`;
}

function tiles(s: StatsSummary): string {
  const rt = s.latency.requestTime;
  const noRt = lacks(s, '$request_time');
  const split = s.proxyGenerated && s.upstreamReturned;
  const fivexx = (made: { status: Record<string, number> } | null) =>
    made
      ? exactCount(Object.entries(made.status).reduce((n, [k, v]) => (k[0] === '5' ? n + v : n), 0))
      : 'unknown';
  return `<dl class="tiles" id="headline">${[
    tile('records', 'requests', exactCount(s.records)),
    tile('5xx', '5xx', `${exactCount(s.statusClass['5xx'])} (${percent(s.ratios['5xx'])})`),
    tile(
      'proxy5xx',
      '5xx made by nginx',
      fivexx(s.proxyGenerated),
      split ? undefined : 'needs $upstream_header_time',
    ),
    tile(
      'upstream5xx',
      '5xx returned by upstreams',
      fivexx(s.upstreamReturned),
      split ? undefined : 'needs $upstream_header_time',
    ),
    tile(
      '499',
      '499 (client closed)',
      `${exactCount(s.clientClosed.count)} (${percent(s.clientClosed.ratio)})`,
    ),
    tile(
      'retried',
      'retried requests',
      s.retriedRequests === null ? 'unknown' : exactCount(s.retriedRequests),
    ),
    tile('p50', 'request time p50', noRt || rt === null ? 'unknown' : seconds(rt.p50)),
    tile('p90', 'p90', noRt || rt === null ? 'unknown' : seconds(rt.p90)),
    tile('p99', 'p99', noRt || rt === null ? 'unknown' : seconds(rt.p99)),
    tile('malformed', 'malformed lines', exactCount(s.malformed.count)),
  ].join('')}</dl>`;
}

function axes(y: string): string {
  return `<p class="axes">y: ${esc(y)} · x: time, UTC</p>`;
}

function incident(s: StatsSummary, b: TimeBuckets): string {
  const v = b.series;
  const split = s.proxyGenerated !== null;
  const errors = split
    ? [
        { label: '5xx made by nginx', cls: 's-proxy5xx', values: v.proxy5xx },
        {
          label: '5xx returned by upstreams',
          cls: 's-upstream5xx',
          values: v['5xx'].map((n, i) => n - v.proxy5xx[i]!),
        },
        { label: '499 client closed', cls: 's-499', values: v['499'] },
      ]
    : [
        { label: '5xx (who made it: unknown)', cls: 's-all5xx', values: v['5xx'] },
        { label: '499 client closed', cls: 's-499', values: v['499'] },
      ];
  const classes = [
    { label: '2xx', cls: 's-2xx', values: v['2xx'] },
    { label: '3xx', cls: 's-3xx', values: v['3xx'] },
    { label: '4xx (499 included)', cls: 's-4xx', values: v['4xx'] },
    { label: '5xx', cls: 's-5xx', values: v['5xx'] },
    { label: '1xx and other', cls: 's-other', values: v['1xx'].map((n, i) => n + v.other[i]!) },
  ];
  return `<section id="errors"><h2>5xx and 499 over time</h2>${legend('errors-legend', errors)}${axes(
    `responses ${bucketUnit(b, false)}`,
  )}${split ? '' : unknownNote('who made each 5xx (nginx or the upstream)', ['$upstream_header_time'])}${timeChart(
    {
      id: 'errors-chart',
      buckets: b,
      series: errors,
      height: 200,
      perSecond: false,
      label: '5xx and 499 over time',
    },
  )}</section><section id="rate"><h2>Request rate</h2>${legend('rate-legend', classes)}${axes(
    'requests per second',
  )}${timeChart({ id: 'rate-chart', buckets: b, series: classes, height: 170, perSecond: true, label: 'request rate by status class' })}</section>`;
}

function upstreams(s: StatsSummary): string {
  const head = '<h2>Upstreams: response time, 5xx and retries</h2>';
  if (s.upstreamStatus === null)
    return `<section id="upstreams">${head}${unknownNote('per-upstream figures', ['$upstream_addr', '$upstream_status'])}</section>`;
  const shown = drawnUpstreams(s);
  const hidden = s.upstreams.slice(REPORT_UPSTREAMS);
  const overall = lacks(s, '$request_time') ? null : s.latency.requestTime;
  const split = s.proxyGenerated !== null;
  const items = [
    { label: 'p50', cls: 'q-p50', shape: 'dot' as const },
    { label: 'p90', cls: 'q-p90', shape: 'diamond' as const },
    { label: 'p99', cls: 'q-p99', shape: 'tick' as const },
    { label: '5xx made by nginx', cls: 's-proxy5xx' },
    { label: '5xx returned by the upstream', cls: 's-upstream5xx' },
    { label: 'retries', cls: 's-retries' },
  ];
  const notes: string[] = [];
  if (hidden.length)
    notes.push(
      `${exactCount(hidden.length)} more addresses (${exactCount(hidden.reduce((n, u) => n + u.requests, 0))} attempts) are not drawn: the report shows the ${REPORT_UPSTREAMS} busiest.`,
    );
  if (s.upstreamOverflow)
    notes.push(
      `${exactCount(s.upstreamOverflow)} attempts on addresses past the statistics' cap are not broken down.`,
    );
  if (!split)
    notes.push(
      'Who made a 5xx needs <code>$upstream_header_time</code>: every 5xx attempt is drawn as one colour.',
    );
  const rows = upstreamRows(shown, overall, split);
  return `<section id="upstreams">${head}${legend('upstream-legend', split ? items : [items[0]!, items[1]!, items[2]!, { label: '5xx attempts', cls: 's-all5xx' }, items[5]!])}<p class="axes">Per attempt: a retried request counts once on each address it tried. Response time is <code>$upstream_response_time</code>.</p>${
    rows.length ? upstreamChart(rows, split) : '<p>No request went to an upstream.</p>'
  }${notes.map((n) => `<p class="note">${n}</p>`).join('')}</section>`;
}

function paths(s: StatsSummary): string {
  const head = '<h2>Top paths by 5xx</h2>';
  if (lacks(s, '$request'))
    return `<section id="paths">${head}${unknownNote('paths', ['$request'])}</section>`;
  const list = s.topPaths5xx.paths;
  if (list.length === 0) return `<section id="paths">${head}<p>No 5xx.</p></section>`;
  const error = s.topPaths5xx.maxError
    ? `<p class="note">Counts may be short by at most ${exactCount(s.topPaths5xx.maxError)} (rare paths were pruned to bound memory).</p>`
    : '';
  return `<section id="paths">${head}${legend('paths-legend', [{ label: '5xx responses', cls: 's-all5xx' }])}${pathsChart(
    list.map((p) => ({ path: cut(p.path), count: p.count })),
  )}${error}</section>`;
}

function table(id: string, head: string[], rows: string[][]): string {
  return `<table id="${id}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map((cell, i) => `<td data-col="${esc(head[i]!)}">${cell}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function tables(s: StatsSummary): string {
  const status = table(
    'status-table',
    ['status', 'count', 'made by nginx', 'returned by upstreams'],
    Object.entries(s.status).map(([code, n]) => [
      esc(code),
      exactCount(n),
      s.proxyGenerated ? exactCount(s.proxyGenerated.status[code] ?? 0) : 'unknown',
      s.upstreamReturned ? exactCount(s.upstreamReturned.status[code] ?? 0) : 'unknown',
    ]),
  );
  // Without $upstream_header_time every 5xx attempt looks nginx-made: that column is unknown, not a count.
  const split = s.proxyGenerated !== null;
  const ups =
    s.upstreamStatus === null
      ? ''
      : `<h3>Upstreams</h3>${table(
          'upstream-table',
          [
            'address',
            'attempts',
            'final',
            '5xx',
            '5xx made by nginx',
            'retries',
            'connect p99',
            'header p99',
            'response p50',
            'response p90',
            'response p99',
          ],
          drawnUpstreams(s).map((u) => [
            `<span title="${esc(u.address)}">${esc(fitLabel(u.address, 300, 10))}</span>`,
            exactCount(u.requests),
            exactCount(u.final),
            exactCount(u.status5xx),
            split ? exactCount(u.proxyGenerated ?? 0) : 'unknown',
            exactCount(u.retries),
            seconds(u.connectTime.p99),
            split ? seconds(u.headerTime.p99) : 'unknown',
            seconds(u.responseTime.p50),
            seconds(u.responseTime.p90),
            seconds(u.responseTime.p99),
          ]),
        )}`;
  const malformed = s.malformed.samples.length
    ? `<h3>Malformed lines (first ${s.malformed.samples.length} of ${exactCount(s.malformed.count)})</h3><ul class="samples">${s.malformed.samples
        .map((m) => `<li><code>${quote(m.input)}:${m.line}</code> <code>${quote(m.text)}</code></li>`)
        .join('')}</ul>`
    : '';
  return `<section id="tables"><h2>Exact counts</h2><h3>Status codes</h3>${status}${ups}${malformed}</section>`;
}

function unknownList(s: StatsSummary): string {
  if (s.unknown.length === 0) return '';
  return `<section id="unknown"><h2>Unknown in this log</h2><p>The log's format does not log what these need; the report says so rather than drawing zeros:</p><ul>${s.unknown
    .map(
      (u) =>
        `<li><b>${esc(u.figure)}</b>: needs ${u.needs.map((n) => `<code>${esc(n)}</code>`).join(', ')}</li>`,
    )
    .join(
      '',
    )}</ul><p>This <code>log_format</code> logs them all:</p><pre>${esc(LOG_FORMAT_TO_ADD)}</pre></section>`;
}

/** The report's content (what a live page replaces on each update), from the summary alone. */
export function renderReportBody(s: StatsSummary, updatedAt?: Date): string {
  const b = bucketTimeline(s.timeline.points, s.timeline.intervalSeconds, s.timeRange);
  const range = s.timeRange ? `${utc(s.timeRange.first)} – ${utc(s.timeRange.last)}` : 'no time in the log';
  const inputs =
    s.inputs
      .slice(0, QUOTED_INPUTS)
      .map((i) => quote(i))
      .join(', ') + (s.inputs.length > QUOTED_INPUTS ? ` and ${s.inputs.length - QUOTED_INPUTS} more` : '');
  const timeline = b
    ? incident(s, b)
    : `<section id="errors"><h2>5xx and 499 over time</h2>${
        lacks(s, '$time_local')
          ? unknownNote('the timeline', ['$time_local'])
          : '<p>No record with a time yet.</p>'
      }</section>`;
  return `<p class="meta" id="meta">${inputs} · format ${quote(s.format)} (${quote(s.formatSource)}) · ${esc(range)}${
    updatedAt ? ` · updated <time id="updated">${esc(utc(updatedAt.toISOString()))}</time>` : ''
  }</p>${damagedNote(s)}${tiles(s)}${unknownList(s)}${timeline}${upstreams(s)}${paths(s)}${tables(s)}`;
}
