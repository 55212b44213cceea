import type { Percentiles } from './histogram.js';
import type { StatsSummary } from './summarize-stats.js';

function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Renders a summary in the Prometheus text exposition format (version 0.0.4). */
export function renderStatsProm(summary: StatsSummary): string {
  const out: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  const quantiles = (name: string, labels: string, p: Percentiles) => {
    for (const [q, v] of [
      ['0.5', p.p50],
      ['0.9', p.p90],
      ['0.99', p.p99],
      ['1', p.max],
    ] as const)
      if (v !== null) out.push(`${name}{${labels}${labels ? ',' : ''}quantile="${q}"} ${v}`);
  };

  metric('proxyops_log_records_total', 'counter', 'Access-log records counted.');
  out.push(`proxyops_log_records_total ${summary.records}`);
  metric('proxyops_log_malformed_lines_total', 'counter', 'Lines that did not match the log format.');
  out.push(`proxyops_log_malformed_lines_total ${summary.malformed.count}`);
  metric('proxyops_log_responses_total', 'counter', 'Responses by status code.');
  for (const [code, count] of Object.entries(summary.status))
    out.push(`proxyops_log_responses_total{status="${code}"} ${count}`);
  if (summary.proxyGenerated && summary.upstreamReturned) {
    metric(
      'proxyops_log_responses_by_origin_total',
      'counter',
      'Responses by who made them: proxy or upstream.',
    );
    for (const [origin, part] of [
      ['proxy', summary.proxyGenerated],
      ['upstream', summary.upstreamReturned],
    ] as const)
      for (const [code, count] of Object.entries(part.status))
        out.push(`proxyops_log_responses_by_origin_total{origin="${origin}",status="${code}"} ${count}`);
  }
  if (summary.upstreamStatus) {
    metric(
      'proxyops_log_upstream_final_status_total',
      'counter',
      'Final upstream status ("-": no upstream response).',
    );
    for (const [code, count] of Object.entries(summary.upstreamStatus))
      out.push(`proxyops_log_upstream_final_status_total{status="${label(code)}"} ${count}`);
  }
  metric('proxyops_log_client_closed_total', 'counter', 'Requests the client closed first (499).');
  out.push(`proxyops_log_client_closed_total ${summary.clientClosed.count}`);
  metric('proxyops_log_request_time_seconds', 'gauge', 'Request time quantiles ($request_time).');
  quantiles('proxyops_log_request_time_seconds', '', summary.latency.requestTime);

  if (summary.upstreams.length) {
    metric('proxyops_log_upstream_attempts_total', 'counter', 'Attempts per upstream address.');
    for (const up of summary.upstreams)
      out.push(`proxyops_log_upstream_attempts_total{upstream="${label(up.address)}"} ${up.requests}`);
    metric('proxyops_log_upstream_5xx_total', 'counter', '5xx attempts per upstream address.');
    for (const up of summary.upstreams)
      out.push(`proxyops_log_upstream_5xx_total{upstream="${label(up.address)}"} ${up.status5xx}`);
    metric(
      'proxyops_log_upstream_proxy_generated_total',
      'counter',
      '5xx made by the proxy per upstream address.',
    );
    for (const up of summary.upstreams)
      out.push(
        `proxyops_log_upstream_proxy_generated_total{upstream="${label(up.address)}"} ${up.proxyGenerated}`,
      );
    metric(
      'proxyops_log_upstream_retries_total',
      'counter',
      'Attempts after which nginx tried another server.',
    );
    for (const up of summary.upstreams)
      out.push(`proxyops_log_upstream_retries_total{upstream="${label(up.address)}"} ${up.retries}`);
    for (const [kind, key] of [
      ['connect', 'connectTime'],
      ['header', 'headerTime'],
      ['response', 'responseTime'],
    ] as const) {
      const name = `proxyops_log_upstream_${kind}_time_seconds`;
      metric(name, 'gauge', `Upstream ${kind} time quantiles per address.`);
      for (const up of summary.upstreams) quantiles(name, `upstream="${label(up.address)}"`, up[key]);
    }
  }
  return out.join('\n') + '\n';
}
