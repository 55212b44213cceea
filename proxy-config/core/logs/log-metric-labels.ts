import { ProxyopsError } from '../errors.js';

/**
 * Upper bounds (seconds) of the classic histograms' `le` buckets: request and upstream times of a web
 * service, from 1 ms (a cache hit) to 64 s (past nginx's default 60 s proxy_read_timeout), 2 to 2.5x
 * apart. Each bound is exact for the exponential histograms the counts come from: up to 0.197 s every
 * whole millisecond has a bucket of its own, and the bounds above are powers of two seconds, which
 * are bucket bounds at every scale. So the `le` counts are what counting each line would give.
 */
export const LE_BUCKETS_SECONDS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64,
] as const;

/** Distinct `status` label values; codes seen after these are exported as `other`. */
export const MAX_STATUS_LABELS = 50;
/** Distinct `upstream` label values; addresses seen after these are exported as `other`. */
export const MAX_UPSTREAM_LABELS = 50;

/** Labels the metrics set themselves: `--label` cannot name them. */
export const OWN_LABELS = ['status', 'status_class', 'origin', 'upstream', 'le', 'quantile'] as const;

/**
 * Gives the first `cap` distinct values a label of their own and every later one `other`, the same
 * way for the whole run (a value never moves between its own label and `other`).
 */
export function createLabelCap(cap: number): (value: string) => string {
  const kept = new Set<string>();
  return (value) => {
    if (kept.has(value)) return value;
    if (kept.size >= cap) return 'other';
    kept.add(value);
    return value;
  };
}

/** Parses `--label name=value` (repeatable) into constant labels of every metric. */
export function parseMetricLabels(items: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (eq < 0 || !/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || name.startsWith('__'))
      throw new ProxyopsError(
        'BAD_OPTION',
        `--label ${item}: give NAME=VALUE with a Prometheus label name (letters, digits, _), e.g. --label host=web1`,
      );
    if ((OWN_LABELS as readonly string[]).includes(name))
      throw new ProxyopsError(
        'BAD_OPTION',
        `--label ${name}: the metrics set that label themselves; choose another name, e.g. host or instance_name`,
      );
    labels[name] = item.slice(eq + 1);
  }
  return labels;
}
