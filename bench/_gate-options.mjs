// The latency rules bench:gates compares on the same deploys: the access log each deploy appended is
// read again, and every new instance's first `watchS` seconds of requests (log time, whole seconds)
// are judged by each rule offline, pure functions from dist/ (the shipped rule's watch going on as
// the deploy's does, while a route short of its slices waits: up to MAX_WATCH_S). Which of them rolls
// back an unchanged release is the false-rollback rate of that option.
import { judgeEffect } from '../dist/proxy-config/core/deploy/effect-size.js';
import {
  DEFAULT_LATENCY_RULE,
  judgeLatencySlices,
  latencyWaiting,
} from '../dist/proxy-config/core/deploy/latency-verdict.js';
import { mannWhitneyGreater, median } from '../dist/proxy-config/core/deploy/mann-whitney.js';
import { recordStart, settleOwnStart, withOwnStart } from '../dist/proxy-config/core/deploy/own-start.js';
import { sameStretches, sliceRequests } from '../dist/proxy-config/core/deploy/warm-up.js';
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
    // As routeOf in core/deploy/log-window.ts: the method and the first path segment of $request.
    route: (/"([A-Z]+) (\/[^/?\s"]*)/.exec(text) ?? []).slice(1).join(' '),
  };
}

/** The rule before issue 35: 100 requests left out (at most half), one window against the peers after it. */
function fixedWarmUp(at) {
  const { mine, others } = at();
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

/** The deploy's watch (deploy.maxWatch of the specs the bench deploys with). */
const MAX_WATCH_S = 60;

/** The slices of all the new instance's requests alone, routes unread. */
const slices = (change) => (at) => {
  const { mine, others } = at();
  const rule = { ...DEFAULT_LATENCY_RULE, ...change };
  return judgeLatencySlices([], unrouted(mine), unrouted(others), 2.5, rule).verdict === 'slower';
};

const unrouted = (side) => ({ ms: side.ms, lines: side.lines });

/**
 * The rule before route slices: a slice of 50 of all the new instance's requests was also slower
 * where one route, holding 15 of its requests and 15 of its comparison's, was slower on its own.
 */
function mixedSliceRoutes(at) {
  const { mine, others } = at();
  const rule = DEFAULT_LATENCY_RULE;
  const whole = judgeLatencySlices([], unrouted(mine), unrouted(others), 2.5);
  if (whole.verdict !== 'not slower') return whole.verdict === 'slower';
  const cuts = sliceRequests(mine.ms.length, rule);
  const stretches = sameStretches(mine, cuts, others);
  const effect = { ...rule, maxRatio: 2.5 };
  const routeSlower = (k) => {
    const own = byRoute(mine, cuts[k]);
    const theirs = byRoute(others, stretches[k]);
    return [...own].some(
      ([route, ms]) =>
        ms.length >= 15 &&
        (theirs.get(route)?.length ?? 0) >= 15 &&
        judgeEffect(ms, theirs.get(route), effect).slower,
    );
  };
  let run = 0;
  for (let k = whole.warmupCut / rule.sliceRequests; k < cuts.length; k++) {
    run = whole.slices[k].slower || routeSlower(k) ? run + 1 : 0;
    if (run === rule.consecutive) return true;
  }
  return false;
}

function byRoute(side, { from, to }) {
  const routes = new Map();
  for (let i = from; i < to; i++)
    routes.set(side.routes[i], [...(routes.get(side.routes[i]) ?? []), side.ms[i]]);
  return routes;
}

/**
 * The shipped rule, looked at each second of the watch as the deploy's watch does (every 250 ms): it
 * ends at its wait, at 3 times it while the instance is cold, at MAX_WATCH_S while a route with a
 * meaningful share is short of its slices (the slices of all requests stopping at its own end);
 * rolled back at the first look that finds it slower. With `ownStart` (the old release's own start,
 * recorded by the last deploy that went through), a look that finds it slower than its peers also
 * judges it against that record at the same age, as the deploy's watch does (withOwnStart); without
 * one, it is judged once warm alone, as a first deploy's. `peersAlone`: the rule before either.
 */
function routeSlices(at, watchS, ownStart, peersAlone = false) {
  let wholeUpTo;
  for (let s = 1; s <= MAX_WATCH_S; s++) {
    const { mine, others } = at(s);
    const rule = DEFAULT_LATENCY_RULE;
    const peers = judgeLatencySlices([], mine, others, 2.5, rule, wholeUpTo ?? mine.ms.length);
    const evidence = peersAlone ? peers : withOwnStart(peers, mine, ownStart?.record);
    if (evidence.verdict === 'slower') return true;
    const waiting = latencyWaiting(evidence);
    const ownEnd = waiting.cold ? 3 * watchS : watchS;
    if (s >= ownEnd && waiting.routes.length > 0) wholeUpTo ??= mine.ms.length;
    // Ends pending (on the old release's own start, or to be warm with no record): settled as the watch does.
    const end = waiting.routes.length > 0 || waiting.pending ? MAX_WATCH_S : ownEnd;
    if (s >= end) return settleOwnStart(evidence).verdict === 'slower';
  }
  return false;
}

/**
 * Kayenta's like with like, from the log alone, as first tried: the rule before it, and then only if
 * the new instance is also `maxRatio` slower than the old release was at the same age. `ownStart`
 * holds the request times of the old release's own new instances over their first seconds, in the
 * last deploy that went through (by each one's request count, pooled): both sides fresh, on the same
 * machine under the same load. Rolled back when two slices in a row past the minimum warm-up are
 * slower than those of the old start at the same request numbers; without a record (a first deploy),
 * the rule before it alone. `scaled`: the record made faster (never slower) by how much faster the
 * warm peers are now than when it was recorded.
 */
const ownStartToo =
  (maxRatio, scaled = false) =>
  (at, watchS, ownStart) => {
    if (!routeSlices(at, watchS, undefined, true)) return false;
    if (!ownStart) return true;
    const { mine, others } = at(MAX_WATCH_S);
    const rule = DEFAULT_LATENCY_RULE;
    const effect = { ...rule, maxRatio };
    const factor = scaled ? Math.min(1, median(others.ms) / ownStart.peersMs) : 1;
    let run = 0;
    for (const { from, to } of sliceRequests(mine.ms.length, rule)) {
      if (from < rule.minWarmupRequests) continue;
      const theirs = ownStart.starts.flatMap((ms) => ms.slice(from, to)).map((ms) => ms * factor);
      const slower =
        theirs.length >= rule.minPeerRequests && judgeEffect(mine.ms.slice(from, to), theirs, effect).slower;
      run = slower ? run + 1 : 0;
      if (run === rule.consecutive) return true;
    }
    return false;
  };

/**
 * The options, by name: each says whether it would have rolled the new instance back, given `at`,
 * the new instance's requests and the others' over its first seconds (the watch's by default).
 */
export const LATENCY_OPTIONS = {
  'fixed warm-up of 100 requests, one window (before)': fixedWarmUp,
  'slices of 50, one slower slice rolls back': slices({
    consecutive: 1,
    levelRatio: Infinity,
    minEffectMs: -Infinity,
  }),
  '+ 2 slices in a row, once levelled off': slices({ minEffectMs: -Infinity }),
  '+ 40 ms floor on median and fastest tenth': slices({}),
  '+ one route of a slice, where it holds 15 of its 50 requests (before)': mixedSliceRoutes,
  '+ each route on slices of 50 of its own requests, its watch going on to 60 s (before)': (at, watchS) =>
    routeSlices(at, watchS, undefined, true),
  '+ also 2.5x slower than the old release at the same age (recorded when it went through), 2 slices in a row':
    ownStartToo(2.5),
  '+ also 1.5x slower than it, 2 slices in a row': ownStartToo(1.5),
  '+ also 1.5x slower than it, 2 slices in a row, the record scaled by the warm peers then and now':
    ownStartToo(1.5, true),
  '+ also 1.5x slower than the old release at the same age, 3 slices in a row (shipped)': routeSlices,
  'the shipped rule on a first deploy: no record, judged once warm (as fast as its peers in 3 slices in a row) up to 60 s':
    (at, watchS) => routeSlices(at, watchS),
};

/**
 * For each new instance of a deploy (`news`: its address, or behind a slot its instance name), which
 * options would have rolled it back, judged on the `text` the deploy appended to the access log;
 * `deployed`, the text and new instances of the last deploy that went through (the old release's start).
 */
export function judgeOptions(text, news, watchS, deployed) {
  const rows = readRows(text);
  // What that deploy's watch read of its new instances: its wait at least (longer where it went on).
  const ownStart = deployed && startsOf(readRows(deployed.text), deployed.news, watchS);
  return news.map((who) => {
    const isMine = mineOf(who);
    const first = rows.find(isMine);
    // Its requests and the others' over its first `seconds` of log time.
    const at = (seconds = watchS) => {
      const mine = { ms: [], lines: [], routes: [] };
      const others = { ms: [], lines: [], routes: [] };
      for (const r of rows)
        if (r.line >= first.line && r.seconds <= first.seconds + seconds && r.address !== null) {
          const side = isMine(r) ? mine : others;
          side.ms.push(r.ms);
          side.lines.push(r.line);
          side.routes.push(r.route);
        }
      return { mine, others };
    };
    return Object.fromEntries(
      Object.entries(LATENCY_OPTIONS).map(([name, rolls]) => [
        name,
        first ? rolls(at, watchS, ownStart) : false,
      ]),
    );
  });
}

const readRows = (text) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line, i) => readLine(line, i + 1));

const mineOf = (who) => (r) =>
  r.address !== null && (who.instance ? r.instance === who.instance : r.address === who.address);

/**
 * The new instances' request times (and routes) over their first `seconds` of log time: the record a
 * deploy keeps, the same as lists of times, and the others' median then.
 */
function startsOf(rows, news, seconds) {
  const isNew = (r) => news.some((who) => mineOf(who)(r));
  const peersMs = median(rows.filter((r) => r.address !== null && !isNew(r)).map((r) => r.ms));
  const samples = news.flatMap((who) => {
    const isMine = mineOf(who);
    const first = rows.find(isMine);
    const own = first ? rows.filter((r) => isMine(r) && r.seconds <= first.seconds + seconds) : [];
    return first ? [{ ms: own.map((r) => r.ms), routes: own.map((r) => r.route) }] : [];
  });
  return {
    record: recordStart(samples, 'the last deploy that went through'),
    starts: samples.map((s) => s.ms),
    peersMs,
  };
}
