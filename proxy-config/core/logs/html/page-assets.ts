import { createHash } from 'node:crypto';

// The page's only script: the hover detail, and on a live page the Server-Sent Events that replace the
// report in place. It runs under a CSP that allows exactly this text (by hash), nothing else.
export const PAGE_SCRIPT = `(() => {
  const tip = document.getElementById('tip');
  const place = (e) => {
    const t = e.target instanceof Element ? e.target.closest('[data-tip]') : null;
    if (!t) { tip.hidden = true; return; }
    tip.textContent = t.getAttribute('data-tip');
    tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let left = e.clientX + 14, top = e.clientY + 14;
    if (left + w > innerWidth - 8) left = Math.max(8, e.clientX - w - 14);
    if (top + h > innerHeight - 8) top = Math.max(8, e.clientY - h - 14);
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  };
  document.addEventListener('pointermove', place);
  document.addEventListener('pointerover', place);
  document.documentElement.addEventListener('pointerleave', () => { tip.hidden = true; });
  const events = document.body.getAttribute('data-live');
  if (events) {
    const state = document.getElementById('live-state');
    const source = new EventSource(events);
    source.addEventListener('open', () => { state.textContent = 'live'; });
    source.addEventListener('error', () => { state.textContent = 'disconnected, reconnecting'; });
    source.addEventListener('report', (e) => {
      document.getElementById('report').innerHTML = JSON.parse(e.data);
      tip.hidden = true;
      document.body.setAttribute('data-updates', String(Number(document.body.getAttribute('data-updates') || 0) + 1));
    });
  }
  document.body.setAttribute('data-ready', 'true');
})();`;

// Light by default, dark where the reader's system asks for it. Series colours differ in hue and
// lightness both, and the percentiles differ in shape too.
export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1d1f21;--muted:#5f6368;--grid:#e3e5e8;--axis:#80868b;--band:#f6f7f8;--card:#f3f4f6;
--proxy5xx:#c62828;--upstream5xx:#ef8f00;--all5xx:#b3261e;--c499:#7b1fa2;--c2xx:#2e7d32;--c3xx:#1565c0;--c4xx:#e0a800;--c5xx:#c62828;--other:#8d8d8d;
--p50:#0277bd;--p90:#6a1b9a;--p99:#d84315;--range:#9aa0a6;--retries:#546e7a;--tipbg:#202124;--tipfg:#fff}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e8eaed;--muted:#9aa0a6;--grid:#2c3035;--axis:#6f757b;--band:#1c1f23;--card:#202327;
--proxy5xx:#ff6b6b;--upstream5xx:#ffb74d;--all5xx:#ff8a80;--c499:#ce93d8;--c2xx:#66bb6a;--c3xx:#64b5f6;--c4xx:#ffd54f;--c5xx:#ef5350;--other:#9e9e9e;
--p50:#4fc3f7;--p90:#ce93d8;--p99:#ff8a65;--range:#5f6368;--retries:#90a4ae;--tipbg:#e8eaed;--tipfg:#15171a}}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:20px 24px;max-width:1000px;background:var(--bg);color:var(--fg)}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 6px}h3{font-size:14px;margin:18px 0 6px}
.meta,.axes,.note{color:var(--muted);margin:2px 0 6px}.axes{font-size:12px}
#live-state{font-weight:600}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin:14px 0}
.tile{background:var(--card);border-radius:6px;padding:6px 10px}.tile dt{color:var(--muted);font-size:12px}.tile dd{margin:0;font-size:17px;font-weight:600}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;margin:4px 0}.legend li{display:flex;align-items:center;gap:6px}
.unknown-note{border-left:4px solid var(--c4xx);background:var(--card);padding:6px 10px}
#unknown pre{white-space:pre-wrap;word-break:break-all;background:var(--card);padding:8px;font-size:12px}
.chart{display:block;width:100%;max-width:960px;height:auto}
.chart text{font:11px ui-monospace,"DejaVu Sans Mono",Menlo,monospace;fill:var(--fg)}
.chart .tick,.chart .muted{fill:var(--muted)}.chart .panel-title{font-weight:600}
.grid{stroke:var(--grid)}.axis{stroke:var(--axis)}.band{fill:var(--band)}.range{stroke:var(--range);stroke-width:2}
.hit{fill:transparent}.hit:hover{fill:var(--fg);fill-opacity:.07}
.s-proxy5xx{fill:var(--proxy5xx)}.s-upstream5xx{fill:var(--upstream5xx)}.s-all5xx{fill:var(--all5xx)}.s-499{fill:var(--c499)}
.s-2xx{fill:var(--c2xx)}.s-3xx{fill:var(--c3xx)}.s-4xx{fill:var(--c4xx)}.s-5xx{fill:var(--c5xx)}.s-other{fill:var(--other)}
.s-retries{fill:var(--retries)}.q-p50{fill:var(--p50)}.q-p90{fill:var(--p90)}.q-p99{fill:var(--p99)}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid var(--grid);padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.samples code{word-break:break-all}
#tip{position:fixed;z-index:9;max-width:440px;padding:6px 8px;border-radius:4px;background:var(--tipbg);color:var(--tipfg);font-size:12px;pointer-events:none}
#tip[hidden]{display:none}
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's Content Security Policy: nothing loads from anywhere; the one script and the one style
 * element run by hash; a live page may also open its event stream on its own origin.
 */
export function contentSecurityPolicy(live: boolean): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(PAGE_SCRIPT)}`,
    `style-src ${sha256(PAGE_STYLE)}`,
    ...(live ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
