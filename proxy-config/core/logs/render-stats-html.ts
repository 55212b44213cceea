import { contentSecurityPolicy, PAGE_SCRIPT, PAGE_STYLE } from './html/page-assets.js';
import { renderReportBody } from './html/report-body.js';
import { esc } from './html/svg-text.js';
import type { StatsSummary } from './summarize-stats.js';

/** How the page is served: a file written once, or a live page fed by an event stream at `events`. */
export interface StatsHtmlOptions {
  title?: string;
  live?: { events: string; updatedAt: Date };
}

/**
 * Renders the self-contained HTML report: inline SVG drawn here (no chart library, no request to
 * anything), one hashed script for the hover detail and live updates, light and dark schemes. Its size
 * is bounded whatever the log's (the timeline is regrouped, upstreams and quotes are capped).
 */
export function renderStatsHtml(summary: StatsSummary, options: StatsHtmlOptions = {}): string {
  const title = options.title ?? 'proxyops access-log report';
  const live = options.live;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(Boolean(live))}">
<title>${esc(title)}</title><style>${PAGE_STYLE}</style></head>
<body${live ? ` data-live="${esc(live.events)}"` : ''}>
<h1>${esc(title)}${live ? ' · <span id="live-state">connecting</span>' : ''}</h1>
<main id="report">${renderReportBody(summary, live?.updatedAt)}</main>
<div id="tip" role="tooltip" hidden></div>
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}

export { renderReportBody };
