import { addToHistogram } from './histogram.js';
import { flatCopy, linePath, type LineFacts } from './line-facts.js';
import type { LogEscape } from './parse-log-format.js';
import {
  coarsenTimeline,
  createTimelinePoint,
  createUpstreamState,
  MAX_PATHS,
  MAX_TIMELINE_POINTS,
  MAX_UPSTREAMS,
  prunePaths,
  type StatsState,
  type TimelinePoint,
} from './stats-state.js';

/**
 * True when the proxy produced the response itself: the final attempt received no response header
 * ($upstream_header_time "-"), or there was no upstream at all. $upstream_status cannot tell: nginx
 * writes 502/504 there whether the app sent it or the proxy made it.
 */
export function isProxyGenerated(facts: LineFacts): boolean {
  return facts.attempts === 0 || facts.headerMs[facts.attempts - 1]! < 0;
}

/** Status class slot in TimelinePoint.counts: 1..5 for 1xx..5xx, 6 for anything else (e.g. 009). */
export function statusClassSlot(status: number): number {
  return status >= 100 && status < 600 ? Math.floor(status / 100) : 6;
}

/** Adds one matched line's facts to the statistics. */
export function addFacts(state: StatsState, f: LineFacts, escape: LogEscape): void {
  const caps = state.capabilities;
  const status = f.status;
  state.records++;
  state.status[status]!++;
  addToHistogram(state.requestTime, f.requestTimeMs);

  const attempts = f.attempts;
  const last = attempts - 1;
  const finalStatus = attempts === 0 ? -1 : f.upstreamStatus[last]!;
  if (caps.upstream) state.upstreamFinal[finalStatus < 0 ? 1000 : finalStatus]!++;
  const proxyMade = caps.headerTime ? isProxyGenerated(f) : false;
  if (caps.headerTime) {
    if (proxyMade) state.proxyGenerated[status]!++;
    else state.upstreamReturned[status]!++;
  }
  if (attempts > 1) state.retriedRequests++;
  // Per-upstream figures need an address or status: a format of times alone has attempts, not upstreams.
  if (caps.upstream) for (let k = 0; k < attempts; k++) addAttempt(state, f, k, k === last);

  if (status === 499) {
    const cc = state.clientClosed;
    cc.count++;
    addToHistogram(cc.requestTime, f.requestTimeMs);
    if (attempts === 0) cc.noUpstream++;
    else {
      addToHistogram(cc.upstreamConnect, f.connectMs[last]!);
      addToHistogram(cc.upstreamResponse, f.responseMs[last]!);
    }
  }

  // A JSON line may lack `request`/`request_uri` though the preset has paths: counted, with no path.
  const path = status >= 500 && status < 600 && caps.path ? linePath(f, escape) : null;
  if (path !== null) {
    const count = state.paths5xx.get(path);
    // A new key is copied: the path may be a slice of the whole chunk, which the map would keep alive.
    if (count === undefined) state.paths5xx.set(flatCopy(path), 1);
    else state.paths5xx.set(path, count + 1);
    if (state.paths5xx.size > MAX_PATHS) prunePaths(state);
  }

  const t = f.timeMs;
  if (t === t) {
    if (t < state.firstTimeMs) state.firstTimeMs = t;
    if (t > state.lastTimeMs) state.lastTimeMs = t;
    const point = timelinePoint(state, t);
    const counts = point.counts;
    counts[0]!++;
    counts[statusClassSlot(status)]!++;
    if (status === 499) counts[7]!++;
    if (proxyMade && status >= 500 && status < 600) counts[8]!++;
    addToHistogram(point.requestTime, f.requestTimeMs);
  }
}

function addAttempt(state: StatsState, f: LineFacts, k: number, isFinal: boolean): void {
  const address = f.addr[k]!;
  let up = state.upstreams.get(address);
  if (!up) {
    if (state.upstreams.size >= MAX_UPSTREAMS) {
      state.upstreamOverflow++;
      return;
    }
    up = createUpstreamState();
    state.upstreams.set(address, up);
  }
  up.requests++;
  const us = f.upstreamStatus[k]!;
  if (us >= 500 && us < 600) {
    up.status5xx++;
    if (f.headerMs[k]! < 0) up.proxyGenerated++;
  }
  if (isFinal) up.final++;
  else up.retries++;
  addToHistogram(up.connect, f.connectMs[k]!);
  addToHistogram(up.header, f.headerMs[k]!);
  addToHistogram(up.response, f.responseMs[k]!);
}

let cachedState: StatsState | null = null;
let cachedKey = NaN;
let cachedInterval = 0;
let cachedPoint: TimelinePoint | null = null;

/** The timeline point holding time `t`, added when new (coarsening the timeline when it is full). */
export function timelinePoint(state: StatsState, t: number): TimelinePoint {
  const key = t - (t % state.intervalMs);
  if (cachedState === state && key === cachedKey && cachedInterval === state.intervalMs && cachedPoint)
    return cachedPoint;
  let point = state.timeline.get(key);
  if (!point) {
    if (state.timeline.size >= MAX_TIMELINE_POINTS) {
      coarsenTimeline(state, state.intervalMs * 2);
      return timelinePoint(state, t);
    }
    point = createTimelinePoint();
    state.timeline.set(key, point);
  }
  cachedState = state;
  cachedKey = key;
  cachedInterval = state.intervalMs;
  cachedPoint = point;
  return point;
}
