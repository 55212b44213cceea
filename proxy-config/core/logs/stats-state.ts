import type { FactsCapabilities } from './line-facts.js';
import type { LogDamage } from './log-damage.js';
import { createHistogram, mergeHistogram, TIMELINE_HISTOGRAM_SCALE, type Histogram } from './histogram.js';

/** Per upstream address, counted per attempt (a retried request counts once on each address it tried). */
export interface UpstreamState {
  requests: number;
  /** Attempts that were the request's final one. */
  final: number;
  status5xx: number;
  /** Attempts that ended in a 5xx without a response header from the upstream (made by the proxy). */
  proxyGenerated: number;
  /** Attempts after which nginx moved on to another server. */
  retries: number;
  connect: Histogram;
  header: Histogram;
  response: Histogram;
}

/** One interval of the timeline: counts (see TIMELINE_COUNTS) and a coarse request-time histogram. */
export interface TimelinePoint {
  counts: Float64Array;
  requestTime: Histogram;
}

/** Slots of TimelinePoint.counts. */
export const TIMELINE_COUNTS = [
  'records',
  '1xx',
  '2xx',
  '3xx',
  '4xx',
  '5xx',
  'other',
  '499',
  'proxy5xx',
] as const;

/** A sample of a line that did not match, with its 1-based line number in its input. */
export interface MalformedSample {
  input: string;
  line: number;
  text: string;
}

/**
 * The mergeable state of log statistics: plain data and typed arrays, so it crosses worker_threads by
 * structured clone and two states merge by adding. Memory is bounded whatever the input size.
 */
export interface StatsState {
  capabilities: FactsCapabilities;
  lines: number;
  records: number;
  malformed: number;
  filtered: number;
  malformedSamples: MalformedSample[];
  /** Count per $status 0..999. */
  status: Float64Array;
  /** Count per final upstream status 0..999; index 1000 is "-" (no upstream response). */
  upstreamFinal: Float64Array;
  proxyGenerated: Float64Array;
  upstreamReturned: Float64Array;
  retriedRequests: number;
  requestTime: Histogram;
  clientClosed: {
    count: number;
    noUpstream: number;
    requestTime: Histogram;
    upstreamConnect: Histogram;
    upstreamResponse: Histogram;
  };
  upstreams: Map<string, UpstreamState>;
  /** Attempts on addresses beyond MAX_UPSTREAMS, not broken down. */
  upstreamOverflow: number;
  paths5xx: Map<string, number>;
  /** Largest count dropped when pruning paths5xx: every reported count may be short by at most this. */
  paths5xxError: number;
  intervalMs: number;
  timeline: Map<number, TimelinePoint>;
  firstTimeMs: number;
  lastTimeMs: number;
  /** The `.gz` inputs that broke off, in input order: the counts above hold only their lines before it. */
  damaged: LogDamage[];
}

/** Most upstream addresses broken down; more are summed in `upstreamOverflow`. */
export const MAX_UPSTREAMS = 1000;
/** Distinct 5xx paths kept before pruning to the busiest half. */
export const MAX_PATHS = 10_000;
/** Timeline points kept before the interval doubles. */
export const MAX_TIMELINE_POINTS = 10_000;

/** An empty state for a format with these capabilities. */
export function createStatsState(capabilities: FactsCapabilities, intervalMs = 60_000): StatsState {
  return {
    capabilities,
    lines: 0,
    records: 0,
    malformed: 0,
    filtered: 0,
    malformedSamples: [],
    status: new Float64Array(1000),
    upstreamFinal: new Float64Array(1001),
    proxyGenerated: new Float64Array(1000),
    upstreamReturned: new Float64Array(1000),
    retriedRequests: 0,
    requestTime: createHistogram(),
    clientClosed: {
      count: 0,
      noUpstream: 0,
      requestTime: createHistogram(),
      upstreamConnect: createHistogram(),
      upstreamResponse: createHistogram(),
    },
    upstreams: new Map(),
    upstreamOverflow: 0,
    paths5xx: new Map(),
    paths5xxError: 0,
    intervalMs,
    timeline: new Map(),
    firstTimeMs: Infinity,
    lastTimeMs: -Infinity,
    damaged: [],
  };
}

/** An empty per-address record. */
export function createUpstreamState(): UpstreamState {
  return {
    requests: 0,
    final: 0,
    status5xx: 0,
    proxyGenerated: 0,
    retries: 0,
    connect: createHistogram(),
    header: createHistogram(),
    response: createHistogram(),
  };
}

/** An empty timeline point. */
export function createTimelinePoint(): TimelinePoint {
  return {
    counts: new Float64Array(TIMELINE_COUNTS.length),
    requestTime: createHistogram(TIMELINE_HISTOGRAM_SCALE),
  };
}

function addArray(into: Float64Array, from: Float64Array): void {
  for (let i = 0; i < from.length; i++) into[i]! += from[i]!;
}

function mergePoint(into: TimelinePoint, from: TimelinePoint): void {
  addArray(into.counts, from.counts);
  mergeHistogram(into.requestTime, from.requestTime);
}

/** Re-buckets the timeline to a longer interval (a multiple of the current one). */
export function coarsenTimeline(state: StatsState, intervalMs: number): void {
  if (intervalMs <= state.intervalMs) return;
  const old = state.timeline;
  state.timeline = new Map();
  state.intervalMs = intervalMs;
  for (const [start, point] of old) {
    const key = Math.floor(start / intervalMs) * intervalMs;
    const existing = state.timeline.get(key);
    if (existing) mergePoint(existing, point);
    else state.timeline.set(key, point);
  }
}

/** Keeps the busiest half of the 5xx paths, remembering the largest count dropped. */
export function prunePaths(state: StatsState): void {
  const entries = [...state.paths5xx].sort((x, y) => y[1] - x[1]);
  const keep = entries.slice(0, MAX_PATHS / 2);
  for (const [, count] of entries.slice(MAX_PATHS / 2))
    state.paths5xxError = Math.max(state.paths5xxError, count);
  state.paths5xx = new Map(keep);
}

/**
 * Adds `from` into `into`. `lineOffset` is the number of lines before `from`'s range in the same input,
 * so malformed samples keep their line numbers when a file was split across workers.
 */
export function mergeStatsState(into: StatsState, from: StatsState, lineOffset = 0): StatsState {
  into.lines += from.lines;
  into.records += from.records;
  into.malformed += from.malformed;
  into.filtered += from.filtered;
  for (const sample of from.malformedSamples) {
    if (into.malformedSamples.length >= MAX_SAMPLES) break;
    into.malformedSamples.push({ ...sample, line: sample.line + lineOffset });
  }
  addArray(into.status, from.status);
  addArray(into.upstreamFinal, from.upstreamFinal);
  addArray(into.proxyGenerated, from.proxyGenerated);
  addArray(into.upstreamReturned, from.upstreamReturned);
  into.retriedRequests += from.retriedRequests;
  mergeHistogram(into.requestTime, from.requestTime);
  const cc = into.clientClosed;
  cc.count += from.clientClosed.count;
  cc.noUpstream += from.clientClosed.noUpstream;
  mergeHistogram(cc.requestTime, from.clientClosed.requestTime);
  mergeHistogram(cc.upstreamConnect, from.clientClosed.upstreamConnect);
  mergeHistogram(cc.upstreamResponse, from.clientClosed.upstreamResponse);
  into.upstreamOverflow += from.upstreamOverflow;
  for (const [address, up] of from.upstreams) {
    let target = into.upstreams.get(address);
    if (!target) {
      if (into.upstreams.size >= MAX_UPSTREAMS) {
        into.upstreamOverflow += up.requests;
        continue;
      }
      target = createUpstreamState();
      into.upstreams.set(address, target);
    }
    target.requests += up.requests;
    target.final += up.final;
    target.status5xx += up.status5xx;
    target.proxyGenerated += up.proxyGenerated;
    target.retries += up.retries;
    mergeHistogram(target.connect, up.connect);
    mergeHistogram(target.header, up.header);
    mergeHistogram(target.response, up.response);
  }
  for (const [path, count] of from.paths5xx) into.paths5xx.set(path, (into.paths5xx.get(path) ?? 0) + count);
  into.paths5xxError += from.paths5xxError;
  if (into.paths5xx.size > MAX_PATHS) prunePaths(into);
  coarsenTimeline(into, from.intervalMs);
  const fromTimeline = from.intervalMs < into.intervalMs ? rebucketed(from, into.intervalMs) : from.timeline;
  for (const [start, point] of fromTimeline) {
    const existing = into.timeline.get(start);
    if (existing) mergePoint(existing, point);
    else into.timeline.set(start, point);
  }
  capTimeline(into);
  into.firstTimeMs = Math.min(into.firstTimeMs, from.firstTimeMs);
  into.lastTimeMs = Math.max(into.lastTimeMs, from.lastTimeMs);
  into.damaged.push(...from.damaged);
  return into;
}

/**
 * Doubles the interval until the timeline holds at most MAX_TIMELINE_POINTS, as one run does while it
 * reads (see timelinePoint): one run ends at the shortest doubling of its interval that fits, whatever
 * the order of its lines, so a merge of parts (threads, batches, `logs merge`) must end there too.
 */
export function capTimeline(state: StatsState): void {
  while (state.timeline.size > MAX_TIMELINE_POINTS) coarsenTimeline(state, state.intervalMs * 2);
}

function rebucketed(state: StatsState, intervalMs: number): Map<number, TimelinePoint> {
  const copy = { ...state, timeline: new Map(state.timeline) };
  coarsenTimeline(copy, intervalMs);
  return copy.timeline;
}

/** How many malformed lines are kept as samples. */
export const MAX_SAMPLES = 5;
