import { timelinePoint } from './add-facts.js';
import { addBucketCounts, type Histogram } from './histogram.js';
import { createUpstreamState, MAX_UPSTREAMS, type StatsState } from './stats-state.js';

/** The scanner's exports this file reads (proxy-config/assembly/log-line-counts.ts lays them out). */
export interface CountsExports {
  memory: WebAssembly.Memory;
  clearTimeline(): void;
  [name: string]: unknown;
}

/**
 * Moves what the scanner counted by itself into `state` and zeroes its counters, so that the state is
 * what add-facts.ts would have made of the same lines. `names[id]` is the address of id.
 */
export function createCountsMover(
  exports: CountsExports,
  names: readonly string[],
): (state: StatsState) => void {
  const constant = (name: string) => (exports[name] as WebAssembly.Global).value as number;
  const C = constant('COUNTS');
  const at = (name: string) => C + constant(name);
  const STATUS = at('STATUS');
  const FINAL = at('FINAL');
  const PROXY_MADE = at('PROXY_MADE');
  const RETURNED = at('RETURNED');
  const REQUEST_TIME = at('REQUEST_TIME');
  const CC_REQUEST_TIME = at('CC_REQUEST_TIME');
  const CC_CONNECT = at('CC_CONNECT');
  const CC_RESPONSE = at('CC_RESPONSE');
  const POOL = at('POOL');
  const TIMELINE = at('TIMELINE');
  const ADDRESS_BYTES = constant('ADDRESS_BYTES');
  const HISTOGRAM_BYTES = constant('HISTOGRAM_BYTES');
  const SLOT_BYTES = constant('SLOT_BYTES');
  const POOL_ADDRESSES = constant('POOL_ADDRESSES');
  const slotsUsed = exports.slotsUsed as WebAssembly.Global;
  let u32 = new Uint32Array(0);
  let f64 = new Float64Array(0);

  // A histogram there: total, max, one past its highest bucket, padding, then the counts.
  const moveHistogram = (h: Histogram | null, offset: number) => {
    const i = offset / 4;
    const top = u32[i + 2]!;
    if (top === 0) return;
    if (h) addBucketCounts(h, u32.subarray(i + 4, i + 4 + top), u32[i]!, u32[i + 1]!);
    u32.fill(0, i, i + 4 + top);
  };
  const moveCounts = (into: Float64Array, offset: number) => {
    const i = offset / 4;
    for (let k = 0; k < into.length; k++) if (u32[i + k] !== 0) into[k]! += u32[i + k]!;
    u32.fill(0, i, i + into.length);
  };

  return (state) => {
    if (u32.buffer !== exports.memory.buffer) {
      u32 = new Uint32Array(exports.memory.buffer);
      f64 = new Float64Array(exports.memory.buffer);
    }
    const s = C / 4;
    state.records += u32[s]!;
    state.retriedRequests += u32[s + 1]!;
    state.clientClosed.count += u32[s + 2]!;
    state.clientClosed.noUpstream += u32[s + 3]!;
    u32.fill(0, s, s + 4);
    state.firstTimeMs = Math.min(state.firstTimeMs, f64[C / 8 + 2]!);
    state.lastTimeMs = Math.max(state.lastTimeMs, f64[C / 8 + 3]!);
    moveCounts(state.status, STATUS);
    moveCounts(state.upstreamFinal, FINAL);
    moveCounts(state.proxyGenerated, PROXY_MADE);
    moveCounts(state.upstreamReturned, RETURNED);
    moveHistogram(state.requestTime, REQUEST_TIME);
    moveHistogram(state.clientClosed.requestTime, CC_REQUEST_TIME);
    moveHistogram(state.clientClosed.upstreamConnect, CC_CONNECT);
    moveHistogram(state.clientClosed.upstreamResponse, CC_RESPONSE);
    for (let id = 0; id < POOL_ADDRESSES && id < names.length; id++) {
      const a = POOL + id * ADDRESS_BYTES;
      const i = a / 4;
      const requests = u32[i]!;
      if (requests === 0) continue;
      let up = state.upstreams.get(names[id]!);
      if (!up && state.upstreams.size < MAX_UPSTREAMS) {
        up = createUpstreamState();
        state.upstreams.set(names[id]!, up);
      }
      if (up) {
        up.requests += requests;
        up.final += u32[i + 1]!;
        up.status5xx += u32[i + 2]!;
        up.proxyGenerated += u32[i + 3]!;
        up.retries += u32[i + 4]!;
      } else state.upstreamOverflow += requests;
      u32.fill(0, i, i + 8);
      moveHistogram(up?.connect ?? null, a + 32);
      moveHistogram(up?.header ?? null, a + 32 + HISTOGRAM_BYTES);
      moveHistogram(up?.response ?? null, a + 32 + 2 * HISTOGRAM_BYTES);
    }
    for (let slot = 0; slot < (slotsUsed.value as number); slot++) {
      const a = TIMELINE + slot * SLOT_BYTES;
      const point = timelinePoint(state, f64[a / 8]!);
      const i = a / 4 + 2;
      for (let k = 0; k < point.counts.length; k++) point.counts[k]! += u32[i + k]!;
      u32.fill(0, i, i + point.counts.length);
      moveHistogram(point.requestTime, a + 48);
    }
    exports.clearTimeline();
  };
}
