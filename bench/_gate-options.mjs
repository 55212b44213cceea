// The latency rules bench:gates compares on the same deploys: the access log each deploy appended is
// read again, and every new instance's first `watchS` seconds of requests (log time, whole seconds)
// are judged by each rule offline, pure functions from dist/. Which of them rolls back an unchanged
// release is the false-rollback rate of that option; the shipped rule is `slices` with its defaults.
import {
  DEFAULT_LATENCY_RULE,
  judgeLatencySlices,
} from '../dist/proxy-config/core/deploy/latency-verdict.js';
import { mannWhitneyGreater, median } from '../dist/proxy-config/core/deploy/mann-whitney.js';
import { MONTHS } from '../dist/proxy-config/core/logs/parse-log-time.js';

/** The fields of proxyops' text log format the options need. */
function readLine(text, line) {
  const t = /\[(\d+)\/(\w+)\/(\d+):(\d+):(\d+):(\d+)/.exec(text);
  const seconds = t ? Date.UTC(+t[3], MONTHS[t[2]], +t[1], +t[4], +t[5], +t[6]) / 1000 : NaN;
  const ua = /ua="([^"]*)"/.exec(text)?.[1] ?? '-';
  return {
    line,
    seconds,
    ms: Math.round(Number(/ rt=([\d.]+)/.exec(text)?.[1]) * 1000),
    address: ua === '-' ? null : ua.split(/, | : /).at(-1),
    instance: /ui="([^"]*)"/.exec(text)?.[1] ?? '-',
  };
}

/** The rule before this change: 100 requests left out (at most half), one window against the peers after it. */
function fixedWarmUp(mine, others) {
  for (let n = 120; n <= mine.ms.length; n += 25) {
    const skip = Math.min(100, Math.floor(n / 2));
    const x = mine.ms.slice(skip, n);
    const from = mine.lines[skip - 1];
    const to = mine.lines[n - 1];
    const y = others.ms.filter((_, i) => others.lines[i] > from && others.lines[i] <= to);
    if (x.length < 50 || y.length < 50) continue;
    const ratio = Math.max(median(x), 10) / Math.max(median(y), 10);
    if (ratio > 2.5 && mannWhitneyGreater(x, y).p < 0.001) return true;
  }
  return false;
}

const slices = (change) => (mine, others) =>
  judgeLatencySlices([], mine, others, 2.5, { ...DEFAULT_LATENCY_RULE, ...change }).verdict === 'slower';

/** The options, by name: each says whether it would have rolled the new instance back. */
export const LATENCY_OPTIONS = {
  'fixed warm-up of 100 requests, one window (before)': fixedWarmUp,
  'slices of 50, one slower slice rolls back': slices({
    consecutive: 1,
    levelRatio: Infinity,
    minEffectMs: -Infinity,
  }),
  '+ 2 slices in a row, once levelled off': slices({ minEffectMs: -Infinity }),
  '+ 40 ms floor on median and fastest tenth (shipped)': slices({}),
};

/**
 * For each new instance of a deploy (`news`: its address, or behind a slot its instance name), which
 * options would have rolled it back, judged on the `text` the deploy appended to the access log.
 */
export function judgeOptions(text, news, watchS) {
  const rows = text
    .split('\n')
    .filter(Boolean)
    .map((line, i) => readLine(line, i + 1));
  return news.map((who) => {
    const isMine = (r) =>
      r.address !== null && (who.instance ? r.instance === who.instance : r.address === who.address);
    const first = rows.find(isMine);
    const mine = { ms: [], lines: [] };
    const others = { ms: [], lines: [] };
    if (first)
      for (const r of rows)
        if (r.line >= first.line && r.seconds <= first.seconds + watchS && r.address !== null) {
          const side = isMine(r) ? mine : others;
          side.ms.push(r.ms);
          side.lines.push(r.line);
        }
    return Object.fromEntries(
      Object.entries(LATENCY_OPTIONS).map(([name, rolls]) => [name, first ? rolls(mine, others) : false]),
    );
  });
}
