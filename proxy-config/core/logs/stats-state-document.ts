import { ProxyopsError } from '../errors.js';
import { indexSlot, slotCount, slotIndex, type Histogram } from './histogram.js';
import type { FactsCapabilities } from './line-facts.js';
import type { LogDamage } from './log-damage.js';
import type { LogFormatSpec } from './log-format-presets.js';
import {
  createStatsState,
  createTimelinePoint,
  createUpstreamState,
  TIMELINE_COUNTS,
  type MalformedSample,
  type StatsState,
  type TimelinePoint,
  type UpstreamState,
} from './stats-state.js';

/**
 * Version of the state file; a reader accepts only its own (schema in docs/access-logs.md). `damaged`
 * was added within /1 rather than as a /2, since no reader misreads a count for it: a reader from
 * before it ignores the field and reads the counts right (the lines before the damage; only the word
 * that they are partial is lost, as in every state that reader wrote itself), and a state from before
 * it has no field and reads here as undamaged, as it was written. A /2 would only make states kept from
 * before and after the upgrade refuse each other.
 */
export const STATE_SCHEMA = 'proxyops.logs.state/1';

/**
 * A histogram on disk, as OpenTelemetry's ExponentialHistogram data point over seconds: `scale`, the
 * count of values, the zero count (0 ms), the largest value in seconds, and the positive buckets that
 * hold values as [index, count] pairs, bucket `index` holding (2^(index·2^-scale), 2^((index+1)·2^-scale)]
 * seconds (a Prometheus native histogram of schema `scale` numbers the same bucket index + 1).
 */
export interface HistogramDocument {
  scale: number;
  count: number;
  zeroCount: number;
  max: number;
  positive: Array<[number, number]>;
}

interface UpstreamDocument {
  address: string;
  requests: number;
  final: number;
  status5xx: number;
  proxyGenerated: number;
  retries: number;
  connect: HistogramDocument;
  header: HistogramDocument;
  response: HistogramDocument;
}

/** The `--state-out` file: a run's exact state and what is needed to merge it with others. */
export interface StateDocument {
  schema: typeof STATE_SCHEMA;
  format: LogFormatSpec;
  formatSource: string;
  capabilities: FactsCapabilities;
  inputs: string[];
  lines: number;
  records: number;
  malformed: number;
  filtered: number;
  malformedSamples: MalformedSample[];
  /** Epoch ms of the first and last record by the log's own time, or null without timed records. */
  timeRange: { firstMs: number; lastMs: number } | null;
  /** Counts by index (the status code; 1000 in upstreamFinal is "-"), only those above zero. */
  status: Array<[number, number]>;
  upstreamFinal: Array<[number, number]>;
  proxyGenerated: Array<[number, number]>;
  upstreamReturned: Array<[number, number]>;
  retriedRequests: number;
  requestTime: HistogramDocument;
  clientClosed: {
    count: number;
    noUpstream: number;
    requestTime: HistogramDocument;
    upstreamConnect: HistogramDocument;
    upstreamResponse: HistogramDocument;
  };
  /** In the order first seen: the order decides which addresses fold into the overflow past the cap. */
  upstreams: UpstreamDocument[];
  upstreamOverflow: number;
  paths5xx: Array<[string, number]>;
  paths5xxError: number;
  timeline: {
    intervalMs: number;
    /** [start ms, counts in the order of `counts`, request-time histogram]. */
    points: Array<[number, number[], HistogramDocument]>;
    counts: string[];
  };
  /** The `.gz` inputs that broke off (see LogDamage); absent in states written before it was kept. */
  damaged?: LogDamage[];
}

/** What a state says of its run beside the counts. */
export interface StateMeta {
  format: LogFormatSpec;
  formatSource: string;
  inputs: string[];
}

function sparse(counts: Float64Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < counts.length; i++) if (counts[i]) out.push([i, counts[i]!]);
  return out;
}

function histogramDocument(h: Histogram): HistogramDocument {
  const positive: Array<[number, number]> = [];
  for (let slot = 1; slot < h.counts.length; slot++)
    if (h.counts[slot]) positive.push([slotIndex(slot, h.scale), h.counts[slot]!]);
  return { scale: h.scale, count: h.total, zeroCount: h.counts[0]!, max: h.max / 1000, positive };
}

function upstreamDocument(address: string, up: UpstreamState): UpstreamDocument {
  return {
    address,
    requests: up.requests,
    final: up.final,
    status5xx: up.status5xx,
    proxyGenerated: up.proxyGenerated,
    retries: up.retries,
    connect: histogramDocument(up.connect),
    header: histogramDocument(up.header),
    response: histogramDocument(up.response),
  };
}

/** The state as a plain, versioned document (JSON.stringify writes it). */
export function toStateDocument(state: StatsState, meta: StateMeta): StateDocument {
  const cc = state.clientClosed;
  return {
    schema: STATE_SCHEMA,
    format: meta.format,
    formatSource: meta.formatSource,
    capabilities: state.capabilities,
    inputs: meta.inputs,
    lines: state.lines,
    records: state.records,
    malformed: state.malformed,
    filtered: state.filtered,
    malformedSamples: state.malformedSamples,
    timeRange:
      state.firstTimeMs <= state.lastTimeMs ? { firstMs: state.firstTimeMs, lastMs: state.lastTimeMs } : null,
    status: sparse(state.status),
    upstreamFinal: sparse(state.upstreamFinal),
    proxyGenerated: sparse(state.proxyGenerated),
    upstreamReturned: sparse(state.upstreamReturned),
    retriedRequests: state.retriedRequests,
    requestTime: histogramDocument(state.requestTime),
    clientClosed: {
      count: cc.count,
      noUpstream: cc.noUpstream,
      requestTime: histogramDocument(cc.requestTime),
      upstreamConnect: histogramDocument(cc.upstreamConnect),
      upstreamResponse: histogramDocument(cc.upstreamResponse),
    },
    upstreams: [...state.upstreams].map(([address, up]) => upstreamDocument(address, up)),
    upstreamOverflow: state.upstreamOverflow,
    paths5xx: [...state.paths5xx],
    paths5xxError: state.paths5xxError,
    timeline: {
      intervalMs: state.intervalMs,
      counts: [...TIMELINE_COUNTS],
      points: [...state.timeline]
        .sort((x, y) => x[0] - y[0])
        .map(([start, point]) => [start, [...point.counts], histogramDocument(point.requestTime)]),
    },
    damaged: state.damaged,
  };
}

/** A state file that is not one, or not one this version reads: exit 2 with what to do. */
function unreadable(name: string, why: string): ProxyopsError {
  return new ProxyopsError('STATE_INCOMPATIBLE', `${name}: ${why}`);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function fill(into: Float64Array, pairs: unknown, name: string): void {
  if (!Array.isArray(pairs)) throw unreadable(name, 'not a proxyops state file (counts are not a list)');
  for (const pair of pairs) {
    const [i, n] = Array.isArray(pair) ? (pair as unknown[]) : [];
    if (!Number.isInteger(i) || (i as number) < 0 || (i as number) >= into.length || !isCount(n))
      throw unreadable(name, `not a proxyops state file (bad count ${JSON.stringify(pair)})`);
    into[i as number] = n;
  }
}

function readHistogram(doc: unknown, scale: number, name: string): Histogram {
  const h = doc as Partial<HistogramDocument> | null;
  if (!h || h.scale !== scale || !isCount(h.count) || !isCount(h.zeroCount) || !isCount(h.max))
    throw unreadable(
      name,
      `its histograms are not exponential ones of scale ${scale} as this proxyops writes; write the states again with this version`,
    );
  if (!Array.isArray(h.positive)) throw unreadable(name, 'not a proxyops state file (bad histogram)');
  const slots = slotCount(scale);
  const pairs: Array<[number, number]> = [[0, h.zeroCount]];
  let top = 1;
  for (const pair of h.positive) {
    const slot = Array.isArray(pair) && Number.isInteger(pair[0]) ? indexSlot(pair[0] as number, scale) : -1;
    if (slot < 1 || slot >= slots)
      throw unreadable(name, `not a proxyops state file (bad bucket ${JSON.stringify(pair)})`);
    pairs.push([slot, pair[1]]);
    top = Math.max(top, slot + 1);
  }
  const counts = new Float64Array(Math.ceil(top / 32) * 32);
  fill(counts, pairs, name);
  // Milliseconds as nginx writes them: the seconds on disk came from whole ms.
  return { scale, counts, total: h.count, max: Math.round(h.max * 1000) };
}

/** The damaged inputs of a state file: none when it has no such field (written before it was kept). */
function readDamaged(damaged: unknown, name: string): LogDamage[] {
  if (damaged === undefined) return [];
  if (!Array.isArray(damaged)) throw unreadable(name, 'not a proxyops state file (damaged is not a list)');
  return damaged.map((entry: unknown) => {
    const d = entry as Partial<LogDamage> | null;
    if (
      !d ||
      typeof d.input !== 'string' ||
      typeof d.reason !== 'string' ||
      !isCount(d.offset) ||
      !isCount(d.size) ||
      !isCount(d.lines)
    )
      throw unreadable(name, `not a proxyops state file (bad damaged input ${JSON.stringify(entry)})`);
    return { input: d.input, offset: d.offset, size: d.size, reason: d.reason, lines: d.lines };
  });
}

/**
 * Reads a parsed state file back into a state (`name` is how errors name it). Throws
 * STATE_INCOMPATIBLE for anything but a state of this schema version.
 */
export function fromStateDocument(doc: unknown, name: string): { state: StatsState; meta: StateMeta } {
  const d = doc as Partial<StateDocument> | null;
  if (
    !d ||
    typeof d !== 'object' ||
    typeof d.schema !== 'string' ||
    !d.schema.startsWith('proxyops.logs.state/')
  )
    throw unreadable(
      name,
      'not a proxyops state file (write one with `proxyops logs stats --state-out FILE`)',
    );
  if (d.schema !== STATE_SCHEMA)
    throw unreadable(
      name,
      `state version ${d.schema} is not read by this proxyops (it reads ${STATE_SCHEMA}); write the states with the proxyops that merges them`,
    );
  if (!d.format || !d.capabilities || !Array.isArray(d.inputs) || !d.timeline || !d.clientClosed)
    throw unreadable(name, 'not a proxyops state file (a part is missing)');
  const state = createStatsState(d.capabilities, d.timeline.intervalMs);
  state.lines = d.lines ?? 0;
  state.records = d.records ?? 0;
  state.malformed = d.malformed ?? 0;
  state.filtered = d.filtered ?? 0;
  state.malformedSamples = d.malformedSamples ?? [];
  if (d.timeRange) {
    state.firstTimeMs = d.timeRange.firstMs;
    state.lastTimeMs = d.timeRange.lastMs;
  }
  fill(state.status, d.status, name);
  fill(state.upstreamFinal, d.upstreamFinal, name);
  fill(state.proxyGenerated, d.proxyGenerated, name);
  fill(state.upstreamReturned, d.upstreamReturned, name);
  state.retriedRequests = d.retriedRequests ?? 0;
  const scale = state.requestTime.scale;
  state.requestTime = readHistogram(d.requestTime, scale, name);
  const cc = d.clientClosed;
  state.clientClosed = {
    count: cc.count,
    noUpstream: cc.noUpstream,
    requestTime: readHistogram(cc.requestTime, scale, name),
    upstreamConnect: readHistogram(cc.upstreamConnect, scale, name),
    upstreamResponse: readHistogram(cc.upstreamResponse, scale, name),
  };
  for (const up of d.upstreams ?? []) {
    const target = createUpstreamState();
    Object.assign(target, {
      requests: up.requests,
      final: up.final,
      status5xx: up.status5xx,
      proxyGenerated: up.proxyGenerated,
      retries: up.retries,
      connect: readHistogram(up.connect, scale, name),
      header: readHistogram(up.header, scale, name),
      response: readHistogram(up.response, scale, name),
    });
    state.upstreams.set(up.address, target);
  }
  state.upstreamOverflow = d.upstreamOverflow ?? 0;
  state.paths5xx = new Map(d.paths5xx ?? []);
  state.paths5xxError = d.paths5xxError ?? 0;
  const slots = createTimelinePoint();
  if (JSON.stringify(d.timeline.counts) !== JSON.stringify(TIMELINE_COUNTS))
    throw unreadable(name, 'its timeline counts are not the ones this proxyops keeps');
  for (const [start, counts, h] of d.timeline.points) {
    const point: TimelinePoint = {
      counts: Float64Array.from(counts),
      requestTime: readHistogram(h, slots.requestTime.scale, name),
    };
    state.timeline.set(start, point);
  }
  state.damaged = readDamaged(d.damaged, name);
  return { state, meta: { format: d.format, formatSource: d.formatSource ?? 'given', inputs: d.inputs } };
}

/** What must be equal for two states to merge: the format's layout (its name may differ) and what it tells. */
function formatIdentity(format: LogFormatSpec, capabilities: FactsCapabilities): string {
  const layout = format.kind === 'format' ? { format: format.format, escape: format.escape } : {};
  return JSON.stringify({ kind: format.kind, ...layout, capabilities });
}

/** Throws STATE_INCOMPATIBLE when `other` was written from another log format than `first`. */
export function assertSameFormat(
  first: { state: StatsState; meta: StateMeta; name: string },
  other: { state: StatsState; meta: StateMeta; name: string },
): void {
  if (
    formatIdentity(first.meta.format, first.state.capabilities) ===
    formatIdentity(other.meta.format, other.state.capabilities)
  )
    return;
  throw unreadable(
    other.name,
    `format ${other.meta.format.name} differs from ${first.name}'s (${first.meta.format.name}); states merge only within one log format: merge each format's states on their own`,
  );
}
