import { ProxyopsError } from '../errors.js';
import type { StatsSummary } from './summarize-stats.js';

/** A parsed `--fail-if` expression: plain data. */
export type FailIfExpr =
  | { kind: 'or' | 'and'; left: FailIfExpr; right: FailIfExpr }
  | { kind: 'not'; expr: FailIfExpr }
  | { kind: 'compare'; metric: string; op: CompareOp; value: number };

type CompareOp = '>' | '>=' | '<' | '<=' | '==' | '!=';

/**
 * Metric names: `records`, `malformed`, `NNN` (a status count, e.g. 499), `Nxx` (a class), each also
 * with `_ratio` (share of records); `proxy_NNN`/`proxy_Nxx` and `upstream_NNN`/`upstream_Nxx`
 * (proxy-generated / upstream-returned, with `_ratio`); `retried`; `p50`, `p90`, `p99`, `max`
 * (request time in seconds).
 */
const METRIC =
  /^(records|malformed|retried|p50|p90|p99|max|(?:(proxy|upstream)_)?([0-9]{3}|[1-5]xx)|malformed_ratio|retried_ratio|(?:(?:proxy|upstream)_)?(?:[0-9]{3}|[1-5]xx)_ratio)$/;

function invalid(text: string, reason: string): ProxyopsError {
  return new ProxyopsError('BAD_OPTION', `--fail-if "${text}": ${reason}`);
}

/** Parses a `--fail-if` expression: comparisons joined by `&&`/`and`, `||`/`or`, `!`/`not`, parentheses. */
export function parseFailIf(text: string): FailIfExpr {
  const tokens =
    text.match(/\s*(>=|<=|==|!=|&&|\|\||[<>()!]|[A-Za-z0-9_.%]+|\S)/g)?.map((t) => t.trim()) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const orExpr = (): FailIfExpr => {
    let left = andExpr();
    while (peek() === '||' || peek()?.toLowerCase() === 'or') {
      next();
      left = { kind: 'or', left, right: andExpr() };
    }
    return left;
  };
  const andExpr = (): FailIfExpr => {
    let left = unary();
    while (peek() === '&&' || peek()?.toLowerCase() === 'and') {
      next();
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  };
  const unary = (): FailIfExpr => {
    if (peek() === '!' || peek()?.toLowerCase() === 'not') {
      next();
      return { kind: 'not', expr: unary() };
    }
    if (peek() === '(') {
      next();
      const inner = orExpr();
      if (next() !== ')') throw invalid(text, 'missing ")"');
      return inner;
    }
    const metric = next();
    if (metric === undefined) throw invalid(text, 'expected a metric');
    if (!METRIC.test(metric.toLowerCase())) throw invalid(text, `unknown metric "${metric}"`);
    const op = next();
    if (!op || !['>', '>=', '<', '<=', '==', '!='].includes(op))
      throw invalid(text, `expected one of > >= < <= == != after "${metric}"`);
    const raw = next();
    const m = raw === undefined ? null : /^(\d+(?:\.\d+)?|\.\d+)(%?)$/.exec(raw);
    if (!m) throw invalid(text, `expected a number after "${metric} ${op}"`);
    // A share compared with a count would almost always hold (5xx>50% is 5xx>0.5): refuse it.
    if (m[2] && !metric.toLowerCase().endsWith('_ratio')) {
      const share = `${metric.toLowerCase()}_ratio`;
      const hint = METRIC.test(share) ? `; use ${share}` : '';
      throw invalid(text, `"${raw}" is a percentage but "${metric}" is not a share${hint}`);
    }
    const value = Number(m[1]) / (m[2] ? 100 : 1);
    return { kind: 'compare', metric: metric.toLowerCase(), op: op as CompareOp, value };
  };
  if (tokens.length === 0) throw invalid(text, 'empty expression');
  const expr = orExpr();
  if (i < tokens.length) throw invalid(text, `unexpected "${tokens[i]}"`);
  return expr;
}

function statusCount(counts: Record<string, number>, code: string): number {
  if (/^[0-9]{3}$/.test(code)) return counts[code] ?? 0;
  const digit = code[0];
  return Object.entries(counts).reduce(
    (sum, [k, v]) => (k[0] === digit && k.length === 3 ? sum + v : sum),
    0,
  );
}

/** The value of one metric in a summary (null when the format cannot tell, which never fails). */
export function failIfMetric(summary: StatsSummary, metric: string): number | null {
  const ratio = metric.endsWith('_ratio');
  const base = ratio ? metric.slice(0, -'_ratio'.length) : metric;
  const per = (count: number | null) =>
    count === null ? null : ratio ? (summary.records ? count / summary.records : 0) : count;
  const time = summary.latency.requestTime;
  switch (base) {
    case 'records':
      return summary.records;
    case 'malformed':
      return ratio ? (summary.lines ? summary.malformed.count / summary.lines : 0) : summary.malformed.count;
    case 'retried':
      return per(summary.retriedRequests);
    case 'p50':
    case 'p90':
    case 'p99':
    case 'max':
      return time === null ? null : time[base];
  }
  const m = /^(?:(proxy|upstream)_)?(.+)$/.exec(base)!;
  const origin = m[1];
  const code = m[2]!;
  if (!origin) return per(statusCount(summary.status, code));
  const part = origin === 'proxy' ? summary.proxyGenerated : summary.upstreamReturned;
  return per(part ? statusCount(part.status, code) : null);
}

/**
 * Kleene's three-valued logic: a comparison on a metric the format cannot give is unknown (null), and
 * so is its negation, so `not proxy_5xx>0` on `combined` is as unknown as `proxy_5xx>0`; `and`/`or`
 * stay decided when the known side decides them.
 */
function truthOf(expr: FailIfExpr, summary: StatsSummary): boolean | null {
  switch (expr.kind) {
    case 'or': {
      const left = truthOf(expr.left, summary);
      const right = truthOf(expr.right, summary);
      return left === true || right === true ? true : left === null || right === null ? null : false;
    }
    case 'and': {
      const left = truthOf(expr.left, summary);
      const right = truthOf(expr.right, summary);
      return left === false || right === false ? false : left === null || right === null ? null : true;
    }
    case 'not': {
      const inner = truthOf(expr.expr, summary);
      return inner === null ? null : !inner;
    }
    case 'compare': {
      const v = failIfMetric(summary, expr.metric);
      if (v === null) return null;
      switch (expr.op) {
        case '>':
          return v > expr.value;
        case '>=':
          return v >= expr.value;
        case '<':
          return v < expr.value;
        case '<=':
          return v <= expr.value;
        case '==':
          return v === expr.value;
        case '!=':
          return v !== expr.value;
      }
    }
  }
}

/** True when the expression holds for the summary; an unknown one (a metric the format lacks) never holds. */
export function evaluateFailIf(expr: FailIfExpr, summary: StatsSummary): boolean {
  return truthOf(expr, summary) === true;
}

/**
 * A metric's value as `--fail-if` reports it: counts exact, shares and seconds to four significant
 * digits (`5xx_ratio=0.2667`, not 0.26666666666666666; a tiny share stays visible as 0.00004), and
 * `n/a` where the log format cannot tell.
 */
export function formatFailIfValue(metric: string, value: number | null): string {
  if (value === null) return 'n/a';
  if (Number.isInteger(value) && !metric.endsWith('_ratio')) return String(value);
  return String(Number(value.toPrecision(4)));
}
