import { contentSecurityPolicy } from '../core/logs/html/page-assets.js';
import { renderReportBody, renderStatsHtml } from '../core/logs/render-stats-html.js';
import type { StatsSummary } from '../core/logs/summarize-stats.js';
import { createEventStream } from '../shell/http/event-stream.js';
import type { RouteHandler } from '../shell/http/serve-http-routes.js';

/**
 * The live report's routes: `/` the page (the same page `--html` writes, made from the latest totals)
 * and `/events` its Server-Sent Events, one `report` event with the page's new content per update.
 * Exported apart from the listener, so one listener may serve these beside other routes.
 */
export function liveReportRoutes(first: StatsSummary): {
  routes: Record<string, RouteHandler>;
  update(summary: StatsSummary): void;
  close(): void;
} {
  let latest = first;
  let updatedAt = new Date();
  const body = () => JSON.stringify(renderReportBody(latest, updatedAt));
  const events = createEventStream(() => ({ event: 'report', data: body() }));
  const page: RouteHandler = (req, res) => {
    const html = renderStatsHtml(latest, { live: { events: 'events', updatedAt } });
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      // The header also forbids framing, which a <meta> policy cannot.
      'content-security-policy': `${contentSecurityPolicy(true)}; frame-ancestors 'none'`,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : html);
  };
  return {
    routes: { '/': page, '/events': (req, res) => events.handle(req, res) },
    update(summary) {
      latest = summary;
      updatedAt = new Date();
      // Rendered once per update for all pages, and not at all while nobody looks.
      if (events.clients() > 0) events.send('report', body());
    },
    close: () => events.close(),
  };
}
