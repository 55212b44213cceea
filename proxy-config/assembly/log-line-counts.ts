// AssemblyScript: the statistics of add-facts.ts for the lines the scanner can count without a string
// (no filter, not a 5xx when the format has a path, addresses among the first POOL_ADDRESSES, a free
// timeline slot), added into plain counters that wasm-line-scanner.ts moves into its StatsState after
// each piece of input. Every other line keeps its record and is counted in JavaScript.

/** Histogram slots for scales 7 and 5 (histogram.ts slotCount; test/proxy-config/logs/histogram.test.ts checks). */
export const BUCKETS: i32 = 3190;
// 863 slots, plus one: a slot's size stays a multiple of 8 (JavaScript reads its key as a Float64Array element).
export const TIMELINE_BUCKETS: i32 = 864;
/** Values below SMALL have their slot looked up (histogram.ts does the same). */
const SMALL: i32 = 4096;
/** A histogram: total, max, one past the highest bucket used, then u32 counts. */
const HEADER: i32 = 16;
export const HISTOGRAM_BYTES: i32 = HEADER + 4 * BUCKETS;
export const TIMELINE_HISTOGRAM_BYTES: i32 = HEADER + 4 * TIMELINE_BUCKETS;
export const POOL_ADDRESSES: i32 = 64;
/** Per pooled address: requests, final, status5xx, proxyGenerated, retries, then connect/header/response. */
export const ADDRESS_BYTES: i32 = 32 + 3 * HISTOGRAM_BYTES;
export const TIMELINE_SLOTS: i32 = 64;
/** Per timeline slot: key (f64), 9 counts (u32), padding, then a scale-5 histogram. */
export const SLOT_BYTES: i32 = 48 + TIMELINE_HISTOGRAM_BYTES;

/** records, retried, 499s, 499s without upstream (u32), then first and last time (f64). */
export const SCALARS: i32 = 0;
export const STATUS: i32 = 32;
export const FINAL: i32 = STATUS + 4 * 1000;
export const PROXY_MADE: i32 = FINAL + 4 * 1004;
export const RETURNED: i32 = PROXY_MADE + 4 * 1000;
export const REQUEST_TIME: i32 = RETURNED + 4 * 1000;
export const CC_REQUEST_TIME: i32 = REQUEST_TIME + HISTOGRAM_BYTES;
export const CC_CONNECT: i32 = CC_REQUEST_TIME + HISTOGRAM_BYTES;
export const CC_RESPONSE: i32 = CC_CONNECT + HISTOGRAM_BYTES;
export const POOL: i32 = CC_RESPONSE + HISTOGRAM_BYTES;
export const TIMELINE: i32 = POOL + POOL_ADDRESSES * ADDRESS_BYTES;
/** u16 slots of 0..SMALL-1 ms at scale 7, then at scale 5. */
export const SMALL_SLOTS: i32 = TIMELINE + TIMELINE_SLOTS * SLOT_BYTES;
export const COUNTS_BYTES: i32 = SMALL_SLOTS + 4 * SMALL;

let base: i32 = 0;
let counting: bool = false;
let hasUpstream: bool = false;
let hasHeaderTime: bool = false;
let hasPath: bool = false;
let intervalMs: f64 = 60000;
/** Timeline slots in use since the last flush, and the last one found. */
export let slotsUsed: i32 = 0;
let lastSlot: i32 = -1;

/** Per scale (see histogram.ts tableOf): the slot of SMALL-1 ms and its bucket index. */
let top7: i32 = 0;
let topIndex7: i32 = 0;
let top5: i32 = 0;
let topIndex5: i32 = 0;
/** Addresses of the two tables of small slots. */
let small7: i32 = 0;
let small5: i32 = 0;

/** Fills the slots of 1..SMALL-1 ms at `table` (histogram.ts tableOf) and returns the last one. */
function fillSmallSlots(table: i32, scale: i32): i32 {
  let slot = 0;
  let last = i32.MIN_VALUE;
  for (let v = 1; v < SMALL; v++) {
    const index = exponentialIndex(v, scale);
    if (index != last) {
      slot++;
      last = index;
    }
    store<u16>(base + table + 2 * v, <u16>slot);
  }
  return slot;
}

/** Where the counters live (set once by the scanner). */
export function placeCounts(at: i32): void {
  base = at;
  small7 = base + SMALL_SLOTS;
  small5 = small7 + 2 * SMALL;
  top7 = fillSmallSlots(SMALL_SLOTS, 7);
  topIndex7 = exponentialIndex(SMALL - 1, 7);
  top5 = fillSmallSlots(SMALL_SLOTS + 2 * SMALL, 5);
  topIndex5 = exponentialIndex(SMALL - 1, 5);
  store<f64>(base + 16, Infinity);
  store<f64>(base + 24, -Infinity);
}

/** Whether lines are counted here, what the format logs, and the timeline's interval; call before each piece. */
export function setCounting(on: bool, upstream: bool, headerTime: bool, path: bool, interval: f64): void {
  counting = on;
  hasUpstream = upstream;
  hasHeaderTime = headerTime;
  hasPath = path;
  if (interval != intervalMs) lastSlot = -1;
  intervalMs = interval;
}

/** Empties the timeline slots after the caller moved them (the other counters it zeroes itself). */
export function clearTimeline(): void {
  slotsUsed = 0;
  lastSlot = -1;
  store<f64>(base + 16, Infinity);
  store<f64>(base + 24, -Infinity);
}

/** histogram.ts exponentialIndex: the base-2 exponential bucket of `ms` milliseconds, in seconds. */
export function exponentialIndex(ms: i32, scale: i32): i32 {
  return <i32>Math.ceil(Math.log2(<f64>ms / 1000.0) * <f64>(1 << scale)) - 1;
}

/** histogram.ts slotOf (scale 7 or 5): slot 0 counts zeros. Exported for the tests; addValue has its own copy. */
export function histogramSlot(value: i32, scale: i32): i32 {
  if (value < SMALL) return <i32>load<u16>((scale == 7 ? small7 : small5) + (value << 1));
  return scale == 7
    ? exponentialIndex(value, 7) - topIndex7 + top7
    : exponentialIndex(value, 5) - topIndex5 + top5;
}

/** histogram.ts addToHistogram: negative values (absent) are not counted. */
function addValue(h: i32, value: i32, scale: i32): void {
  if (value < 0) return;
  // histogramSlot, written out: a call here cost 7 % of a run's CPU (binaryen does not inline it).
  let index: i32;
  if (value < SMALL) index = <i32>load<u16>((scale == 7 ? small7 : small5) + (value << 1));
  else
    index =
      scale == 7
        ? exponentialIndex(value, 7) - topIndex7 + top7
        : exponentialIndex(value, 5) - topIndex5 + top5;
  const at = h + HEADER + 4 * index;
  store<u32>(at, load<u32>(at) + 1);
  store<u32>(h, load<u32>(h) + 1);
  if (<u32>value > load<u32>(h + 4)) store<u32>(h + 4, value);
  if (index >= load<i32>(h + 8)) store<i32>(h + 8, index + 1);
}

function bump(at: i32): void {
  store<u32>(at, load<u32>(at) + 1);
}

function slotOf(key: f64): i32 {
  if (lastSlot >= 0 && load<f64>(base + TIMELINE + lastSlot * SLOT_BYTES) == key) return lastSlot;
  for (let i = 0; i < slotsUsed; i++)
    if (load<f64>(base + TIMELINE + i * SLOT_BYTES) == key) return (lastSlot = i);
  if (slotsUsed == TIMELINE_SLOTS) return -1;
  const slot = slotsUsed++;
  store<f64>(base + TIMELINE + slot * SLOT_BYTES, key);
  return (lastSlot = slot);
}

/**
 * Counts the matched line of record `rec` (layout of log-line-scanner.ts) with time `t`; false when it
 * must be counted in JavaScript instead.
 */
export function countLine(rec: i32, t: f64): bool {
  if (!counting) return false;
  const status = load<i32>(rec + 12);
  if (hasPath && status >= 500 && status < 600) return false;
  const attempts = load<i32>(rec + 20);
  for (let k = 0; k < attempts; k++) if (load<i32>(rec + 32 + 20 * k) >= POOL_ADDRESSES) return false;
  let slot = -1;
  if (!isNaN(t)) {
    slot = slotOf(t - (t % intervalMs));
    if (slot < 0) return false;
  }
  const requestMs = load<i32>(rec + 16);
  bump(base + SCALARS);
  bump(base + STATUS + 4 * status);
  addValue(base + REQUEST_TIME, requestMs, 7);
  const last = rec + 32 + 20 * (attempts - 1);
  const finalStatus = attempts == 0 ? -1 : load<i32>(last + 4);
  if (hasUpstream) bump(base + FINAL + 4 * (finalStatus < 0 ? 1000 : finalStatus));
  const proxyMade = hasHeaderTime && (attempts == 0 || load<i32>(last + 12) < 0);
  if (hasHeaderTime) bump(base + (proxyMade ? PROXY_MADE : RETURNED) + 4 * status);
  if (attempts > 1) bump(base + SCALARS + 4);
  for (let k = 0; hasUpstream && k < attempts; k++) {
    const a = rec + 32 + 20 * k;
    const up = base + POOL + load<i32>(a) * ADDRESS_BYTES;
    bump(up);
    const upstreamStatus = load<i32>(a + 4);
    if (upstreamStatus >= 500 && upstreamStatus < 600) {
      bump(up + 8);
      if (load<i32>(a + 12) < 0) bump(up + 12);
    }
    bump(k == attempts - 1 ? up + 4 : up + 16);
    addValue(up + 32, load<i32>(a + 8), 7);
    addValue(up + 32 + HISTOGRAM_BYTES, load<i32>(a + 12), 7);
    addValue(up + 32 + 2 * HISTOGRAM_BYTES, load<i32>(a + 16), 7);
  }
  if (status == 499) {
    bump(base + SCALARS + 8);
    addValue(base + CC_REQUEST_TIME, requestMs, 7);
    if (attempts == 0) bump(base + SCALARS + 12);
    else {
      addValue(base + CC_CONNECT, load<i32>(last + 8), 7);
      addValue(base + CC_RESPONSE, load<i32>(last + 16), 7);
    }
  }
  if (slot >= 0) {
    if (t < load<f64>(base + 16)) store<f64>(base + 16, t);
    if (t > load<f64>(base + 24)) store<f64>(base + 24, t);
    const point = base + TIMELINE + slot * SLOT_BYTES;
    bump(point + 8);
    bump(point + 8 + 4 * (status >= 100 && status < 600 ? status / 100 : 6));
    if (status == 499) bump(point + 8 + 4 * 7);
    if (proxyMade && status >= 500 && status < 600) bump(point + 8 + 4 * 8);
    addValue(point + 48, requestMs, 5);
  }
  return true;
}
