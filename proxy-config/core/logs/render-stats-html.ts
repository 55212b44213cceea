import type { StatsSummary } from './summarize-stats.js';

/** Embeds JSON in a <script> element without letting "</script>" or "<!--" end it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

// Runs in the browser: draws the numbers and two SVG charts from the embedded summary. No network.
const PAGE_SCRIPT = String.raw`
const s = JSON.parse(document.getElementById('stats').textContent);
const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, text) => {
  const ns = ['svg','rect','line','text','polyline','g','title'].includes(tag) ? 'http://www.w3.org/2000/svg' : null;
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
};
const fmt = (v) => v === null || v === undefined ? '-' : typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v);
const kv = (name, value) => { const d = el('div', { class: 'kv' }); d.append(el('span', {}, name), el('b', { 'data-metric': name }, fmt(value))); return d; };
const head = $('#headline');
head.append(kv('records', s.records), kv('malformed', s.malformed.count), kv('5xx', s.statusClass['5xx']),
  kv('499', s.clientClosed.count), kv('proxyGenerated', s.proxyGenerated ? s.proxyGenerated.total : null),
  kv('p50', s.latency.requestTime.p50), kv('p90', s.latency.requestTime.p90), kv('p99', s.latency.requestTime.p99),
  kv('max', s.latency.requestTime.max));
const table = (rows, cols, id) => {
  const t = el('table', { id });
  const tr = el('tr'); cols.forEach((c) => tr.append(el('th', {}, c[0]))); t.append(tr);
  rows.forEach((r) => { const row = el('tr'); cols.forEach((c) => row.append(el('td', { 'data-col': c[0] }, fmt(c[1](r))))); t.append(row); });
  return t;
};
$('#status').append(table(Object.entries(s.status), [['status', (r) => r[0]], ['count', (r) => r[1]]], 'status-table'));
$('#upstreams').append(table(s.upstreams, [['address', (u) => u.address], ['requests', (u) => u.requests], ['5xx', (u) => u.status5xx],
  ['proxy-made', (u) => u.proxyGenerated], ['retries', (u) => u.retries], ['connect p99', (u) => u.connectTime.p99],
  ['header p99', (u) => u.headerTime.p99], ['response p50', (u) => u.responseTime.p50], ['response p90', (u) => u.responseTime.p90],
  ['response p99', (u) => u.responseTime.p99]], 'upstream-table'));
$('#paths').append(table(s.topPaths5xx.paths, [['path', (p) => p.path], ['5xx', (p) => p.count]], 'paths-table'));

const W = 900, H = 220, PAD = 36;
const classes = [['2xx', '#2e7d32'], ['3xx', '#1565c0'], ['4xx', '#f9a825'], ['5xx', '#c62828'], ['1xx', '#777'], ['other', '#444']];
const pts = s.timeline.points;
const svg = el('svg', { id: 'status-chart', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
const maxTotal = Math.max(1, ...pts.map((p) => p.records));
const bw = pts.length ? (W - PAD) / pts.length : 0;
pts.forEach((p, i) => {
  let y = H - 20;
  for (const [cls, color] of classes) {
    const h = (p[cls] / maxTotal) * (H - 40);
    if (h <= 0) continue;
    y -= h;
    const r = el('rect', { x: PAD + i * bw, y, width: Math.max(1, bw - 1), height: h, fill: color, 'data-class': cls, 'data-count': p[cls] });
    r.append(el('title', {}, p.time + ' ' + cls + ': ' + p[cls]));
    svg.append(r);
  }
});
svg.append(el('text', { x: 2, y: 14, 'font-size': 11 }, String(maxTotal)), el('text', { x: PAD, y: H - 4, 'font-size': 11 }, pts[0] ? pts[0].time : ''));
$('#timeline').append(svg);

const lat = el('svg', { id: 'latency-chart', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
const series = [['overall', s.latency.requestTime]].concat(s.upstreams.map((u) => [u.address, u.responseTime]));
const maxLat = Math.max(0.001, ...series.flatMap(([, p]) => [p.p50, p.p90, p.p99].filter((v) => v !== null)));
const gw = (W - PAD) / Math.max(1, series.length);
series.forEach(([name, p], i) => {
  [['p50', '#90caf9'], ['p90', '#1e88e5'], ['p99', '#0d47a1']].forEach(([q, color], j) => {
    const v = p[q] === null ? 0 : p[q];
    const h = (v / maxLat) * (H - 50);
    lat.append(el('rect', { x: PAD + i * gw + j * (gw / 4), y: H - 30 - h, width: gw / 4 - 2, height: h, fill: color, 'data-series': name, 'data-quantile': q, 'data-value': v }));
  });
  lat.append(el('text', { x: PAD + i * gw, y: H - 12, 'font-size': 11 }, name));
});
$('#latency').append(lat);
document.body.setAttribute('data-ready', 'true');
`;

/** Renders a self-contained HTML report (inline data, script and styles; no network). */
export function renderStatsHtml(summary: StatsSummary, title = 'proxyops access-log report'): string {
  const esc = (t: string) => t.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.kv{display:inline-block;margin:0 18px 8px 0}.kv span{color:#666;margin-right:6px}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
</style></head><body>
<h1>${esc(title)}</h1>
<p>${esc(summary.inputs.join(', '))} · format ${esc(summary.format)}${summary.timeRange ? ` · ${esc(summary.timeRange.first)} – ${esc(summary.timeRange.last)}` : ''}</p>
<section id="headline"></section>
<h2>Status classes per ${summary.timeline.intervalSeconds}s</h2><section id="timeline"></section>
<h2>Latency percentiles (s): request time, and upstream response time per address</h2><section id="latency"></section>
<h2>Status codes</h2><section id="status"></section>
<h2>Upstreams</h2><section id="upstreams"></section>
<h2>Top paths by 5xx</h2><section id="paths"></section>
<script type="application/json" id="stats">${scriptJson(summary)}</script>
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}
