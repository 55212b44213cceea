// AssemblyScript: the byte-level fast path of `logs stats` for one nginx log_format, built into
// dist/proxy-config/assembly/log-line-scanner.wasm. It reads lines straight from its memory, where the
// caller reads the file, and writes one fixed-size record per line. It follows the sticky regex of
// compile-log-format.ts exactly: a value ends at the first occurrence of the next literal's first
// character, so wherever it accepts a line, every value is the one the JavaScript readers would
// take. Anything unusual (a failed time, a list of more than MAX_ATTEMPTS, a 4th decimal, a value with
// a backslash under escape=json, a "\r") is refused, and the caller reads that line in JavaScript.

import { COUNTS_BYTES, countLine, placeCounts } from './log-line-counts';
export {
  ADDRESS_BYTES,
  CC_CONNECT,
  CC_REQUEST_TIME,
  CC_RESPONSE,
  clearTimeline,
  FINAL,
  HISTOGRAM_BYTES,
  histogramSlot,
  POOL,
  POOL_ADDRESSES,
  PROXY_MADE,
  REQUEST_TIME,
  RETURNED,
  setCounting,
  SLOT_BYTES,
  slotsUsed,
  STATUS,
  TIMELINE,
} from './log-line-counts';

/** Variable kinds of the program (see wasm-line-scanner.ts, which writes it). */
const SKIP: i32 = 0;
const STATUS: i32 = 1;
const TIME_LOCAL: i32 = 2;
const TIME_ISO: i32 = 3;
const REQUEST_TIME: i32 = 4;
const ADDR: i32 = 5;
const UPSTREAM_STATUS: i32 = 6;
const CONNECT: i32 = 7;
const HEADER: i32 = 8;
const RESPONSE: i32 = 9;
const URI: i32 = 10;

/**
 * Per variable: kind, fixed width (-1 for none), offset and length of the literal after it (written by
 * the caller), then the literal's first byte in all 16 lanes (by `configure`).
 */
const VAR_INTS: i32 = 8;
export const MAX_VARIABLES: i32 = 64;
export const MAX_ATTEMPTS: i32 = 4;
/** Int32 slots of a record: flag, start, newline, status, request ms, attempts, uri a/b, attempts × 5. */
export const RECORD_INTS: i32 = 8 + 5 * MAX_ATTEMPTS;
export const MAX_LINES: i32 = 4096;
export const MAX_ADDRESSES: i32 = 4096;
const TABLE_SLOTS: i32 = 8192;
const ARENA_BYTES: i32 = 256 * 1024;

// Memory layout: everything fixed first, the input last so that it can grow with memory.grow.
export const PROGRAM: i32 = 65536;
export const LITERALS: i32 = PROGRAM + 4 * (4 + VAR_INTS * MAX_VARIABLES);
const LITERAL_BYTES: i32 = 16384;
export const RECORDS: i32 = LITERALS + LITERAL_BYTES;
export const TIMES: i32 = RECORDS + 4 * RECORD_INTS * MAX_LINES;
const TABLE: i32 = TIMES + 8 * MAX_LINES;
/** Per address id: offset and length of its bytes in the arena. */
export const ADDRESSES: i32 = TABLE + 4 * TABLE_SLOTS;
export const ARENA: i32 = ADDRESSES + 8 * MAX_ADDRESSES;
/** The counters of log-line-counts.ts. */
export const COUNTS: i32 = ARENA + ARENA_BYTES;
export const INPUT: i32 = (COUNTS + COUNTS_BYTES + 65535) & ~65535;

const NL: u8 = 10;
const NL_V: v128 = i8x16.splat(10);
const BACKSLASH_V: v128 = i8x16.splat(92);
const REFUSED: i32 = -2;

let variableCount: i32 = 0;
let json: bool = false;
/** The format logs $upstream_addr or $upstream_status; without them its times count the attempts. */
let listsAttempts: bool = false;
/** Address ids given so far; id 0 is "-" (an attempt without an address). */
export let addressCount: i32 = 1;
let arenaUsed: i32 = 0;
/** Where the last `scan` stopped. */
export let scanned: i32 = 0;
let minuteA: u64 = 0;
let minuteB: u64 = 0;
let minuteC: u32 = 0;
let zoneA: u32 = 0;
let zoneB: u32 = 0;
let minuteMs: f64 = NaN;

/** Reads the program the caller wrote at PROGRAM: variable count, escape=json, first literal. */
export function configure(): void {
  placeCounts(COUNTS);
  variableCount = load<i32>(PROGRAM);
  json = load<i32>(PROGRAM + 4) != 0;
  listsAttempts = false;
  for (let i = 0; i < variableCount; i++) {
    const v = PROGRAM + 16 + 4 * VAR_INTS * i;
    const kind = load<i32>(v);
    if (kind == ADDR || kind == UPSTREAM_STATUS) listsAttempts = true;
    v128.store(v + 16, i8x16.splat(load<u8>(LITERALS + load<i32>(v + 8))));
  }
  minuteMs = NaN;
}

/** First position from `p` holding `c` or "\n"; a "\n" always follows. */
function find(p: i32, c: v128): i32 {
  let mask = 0;
  for (p -= 16; mask == 0;) {
    p += 16;
    const v = v128.load(p);
    mask = i8x16.bitmask(v128.or(i8x16.eq(v, c), i8x16.eq(v, NL_V)));
  }
  return p + ctz(mask);
}

/** As `find`, also stopping at a backslash (escape=json's escapes go to JavaScript). */
function findJson(p: i32, c: v128): i32 {
  let mask = 0;
  for (p -= 16; mask == 0;) {
    p += 16;
    const v = v128.load(p);
    mask = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, c), i8x16.eq(v, NL_V)), i8x16.eq(v, BACKSLASH_V)));
  }
  return p + ctz(mask);
}

function findNewline(p: i32): i32 {
  let mask = 0;
  for (p -= 16; mask == 0;) {
    p += 16;
    mask = i8x16.bitmask(i8x16.eq(v128.load(p), NL_V));
  }
  return p + ctz(mask);
}

/** The first "\n" in [p, p + n), or -1. */
function newlineWithin(p: i32, n: i32): i32 {
  for (let i = 0; i < n; i += 16) {
    const mask = i8x16.bitmask(i8x16.eq(v128.load(p + i), NL_V));
    if (mask != 0) return i + ctz(mask) < n ? p + i + ctz(mask) : -1;
  }
  return -1;
}

function digit(p: i32): i32 {
  return <i32>load<u8>(p) - 48;
}

function twoDigits(p: i32): i32 {
  const x = digit(p);
  const y = digit(p + 1);
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

function status(a: i32, b: i32): i32 {
  if (b - a != 3) return -1;
  const x = digit(a);
  const y = twoDigits(a + 1);
  return x >= 0 && x <= 9 && y >= 0 ? x * 100 + y : -1;
}

/** nginx seconds as whole ms (upstream-list.ts readMillis); -1 for anything else, REFUSED past 3 decimals. */
function millis(a: i32, b: i32): i32 {
  // nginx writes "S.mmm": check and read its 5 bytes at once (each digit's high nibble is 3, and
  // stays 3 after adding 6; the dot is compared whole).
  if (b - a == 5) {
    const w = load<u64>(a) & 0xffffffffff;
    if ((w & 0xf0f0f0fff0) == 0x3030302e30 && ((w + 0x0606060006) & 0xf0f0f000f0) == 0x3030300030)
      return (
        <i32>(w & 15) * 1000 +
        <i32>((w >> 16) & 15) * 100 +
        <i32>((w >> 24) & 15) * 10 +
        <i32>((w >> 32) & 15)
      );
  }
  let i = a;
  let ms = 0;
  for (; i < b; i++) {
    const d = digit(i);
    if (d < 0 || d > 9) break;
    if (i - a == 6) return REFUSED;
    ms = ms * 10 + d;
  }
  if (i == a) return -1;
  ms *= 1000;
  if (i < b) {
    if (load<u8>(i) != 46) return -1;
    let scale = 100;
    for (i++; i < b; i++) {
      const d = digit(i);
      if (d < 0 || d > 9) return -1;
      if (scale == 0) return REFUSED;
      ms += d * scale;
      scale /= 10;
    }
  }
  return ms;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1..12; the day may run past the month). */
function daysFromCivil(year: i32, month: i32, day: i32): i32 {
  const y = month <= 2 ? year - 1 : year;
  const era = y / 400;
  const yoe = y - era * 400;
  const doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

function monthOf(p: i32): i32 {
  const m = load<u32>(p) & 0xffffff;
  // "Jan".."Dec" as little-endian 24-bit words.
  if (m == 0x6e614a) return 1;
  if (m == 0x626546) return 2;
  if (m == 0x72614d) return 3;
  if (m == 0x727041) return 4;
  if (m == 0x79614d) return 5;
  if (m == 0x6e754a) return 6;
  if (m == 0x6c754a) return 7;
  if (m == 0x677541) return 8;
  if (m == 0x706553) return 9;
  if (m == 0x74634f) return 10;
  if (m == 0x766f4e) return 11;
  if (m == 0x636544) return 12;
  return 0;
}

/** Offset in ms of "+hhmm" (or "+hh:mm") at p, NaN when it is not one. */
function zoneMs(p: i32, colon: bool): f64 {
  const sign = load<u8>(p);
  const hh = twoDigits(p + 1);
  const mm = twoDigits(p + (colon ? 4 : 3));
  if ((sign != 43 && sign != 45) || hh < 0 || mm < 0) return NaN;
  const ms = <f64>(hh * 60 + mm) * 60000;
  return sign == 45 ? -ms : ms;
}

/** Epoch ms of the minute (zone applied) of a time value at a; NaN when it does not parse. */
function parseMinute(a: i32, local: bool): f64 {
  let year: i32;
  let month: i32;
  let day: i32;
  let hour: i32;
  let minute: i32;
  if (local) {
    // 22/Nov/2026:02:24:03 +0000
    if (load<u8>(a + 2) != 47 || load<u8>(a + 6) != 47 || load<u8>(a + 11) != 58 || load<u8>(a + 20) != 32)
      return NaN;
    if (load<u8>(a + 14) != 58) return NaN;
    day = twoDigits(a);
    month = monthOf(a + 3);
    year = twoDigits(a + 7) * 100 + twoDigits(a + 9);
    if (twoDigits(a + 7) < 0 || twoDigits(a + 9) < 0) return NaN;
    hour = twoDigits(a + 12);
    minute = twoDigits(a + 15);
  } else {
    // 2026-11-22T02:24:03+00:00
    if (load<u8>(a + 4) != 45 || load<u8>(a + 7) != 45 || load<u8>(a + 10) != 84 || load<u8>(a + 13) != 58)
      return NaN;
    if (load<u8>(a + 22) != 58) return NaN;
    year = twoDigits(a) * 100 + twoDigits(a + 2);
    if (twoDigits(a) < 0 || twoDigits(a + 2) < 0) return NaN;
    month = twoDigits(a + 5);
    day = twoDigits(a + 8);
    hour = twoDigits(a + 11);
    minute = twoDigits(a + 14);
  }
  // Date.UTC reads years 0..99 as 19xx and rolls months over: leave such values to JavaScript.
  if (year < 1000 || month < 1 || month > 12 || day < 0 || hour < 0 || minute < 0) return NaN;
  const zone = zoneMs(a + (local ? 21 : 19), !local);
  const days = <f64>daysFromCivil(year, month, 1) + <f64>(day - 1);
  return days * 86400000 + <f64>(hour * 3600000 + minute * 60000) - zone;
}

/** Epoch ms of a time value at a; lines of one minute share it, so the minute is compared, not parsed. */
function time(a: i32, local: bool): f64 {
  const colonAt = local ? 17 : 16;
  if (load<u8>(a + colonAt) != 58) return NaN;
  const seconds = twoDigits(a + colonAt + 1);
  if (seconds < 0 || seconds >= 61) return NaN;
  const zoneAt = a + colonAt + 3;
  const ma = load<u64>(a);
  const mb = load<u64>(a + 8);
  const mc = local ? load<u8>(a + 16) : 0;
  const za = load<u32>(zoneAt);
  const zb = <u32>load<u16>(zoneAt + 4);
  if (ma != minuteA || mb != minuteB || mc != minuteC || za != zoneA || zb != zoneB || isNaN(minuteMs)) {
    const ms = parseMinute(a, local);
    if (isNaN(ms)) return NaN;
    minuteA = ma;
    minuteB = mb;
    minuteC = mc;
    zoneA = za;
    zoneB = zb;
    minuteMs = ms;
  }
  return minuteMs + <f64>(seconds * 1000);
}

/** A hash of the bytes at [a, b): its first and last 8 bytes and its length, or FNV-1a when shorter. */
function hashOf(a: i32, b: i32): u32 {
  if (b - a >= 8) {
    const x = load<u64>(a) ^ (load<u64>(b - 8) * 31 + <u64>(b - a));
    const h = ((<u32>x) ^ (<u32>(x >> 32))) * 0x9e3779b1;
    return h ^ (h >> 16);
  }
  let h: u32 = 2166136261;
  for (let i = a; i < b; i++) h = (h ^ load<u8>(i)) * 16777619;
  return h;
}

/** True when the n bytes at x and y are equal. */
function sameBytes(x: i32, y: i32, n: i32): bool {
  if (n >= 8 && n <= 16) return load<u64>(x) == load<u64>(y) && load<u64>(x + n - 8) == load<u64>(y + n - 8);
  return memory.compare(<usize>x, <usize>y, <usize>n) == 0;
}

/** The id of the address at [a, b), added when new; REFUSED when the table is full. */
function addressId(a: i32, b: i32): i32 {
  const n = b - a;
  let slot = <i32>(hashOf(a, b) & (<u32>(TABLE_SLOTS - 1)));
  for (;;) {
    const id = load<i32>(TABLE + 4 * slot);
    if (id == 0) break;
    const at = ARENA + load<i32>(ADDRESSES + 8 * id);
    if (load<i32>(ADDRESSES + 8 * id + 4) == n && sameBytes(at, a, n)) return id;
    slot = (slot + 1) & (TABLE_SLOTS - 1);
  }
  if (addressCount >= MAX_ADDRESSES || arenaUsed + n > ARENA_BYTES) return REFUSED;
  const id = addressCount++;
  memory.copy(<usize>(ARENA + arenaUsed), <usize>a, <usize>n);
  store<i32>(ADDRESSES + 8 * id, arenaUsed);
  store<i32>(ADDRESSES + 8 * id + 4, n);
  arenaUsed += n;
  store<i32>(TABLE + 4 * slot, id);
  return id;
}

/** The value of an upstream list entry at [a, b) for `kind`, REFUSED when it cannot be told here. */
function entry(kind: i32, a: i32, b: i32): i32 {
  if (kind == ADDR) return addressId(a, b);
  if (kind == UPSTREAM_STATUS) return status(a, b);
  return millis(a, b);
}

/**
 * Writes the values of the list at [a, b) (upstream-list.ts scanUpstreamList) into slot `field` of
 * each attempt; returns how many, or REFUSED.
 */
function list(kind: i32, a: i32, b: i32, rec: i32, field: i32): i32 {
  let p = a;
  let k = 0;
  let space = nextSpace(p, b);
  while (space < b) {
    if (k >= MAX_ATTEMPTS) return REFUSED;
    const comma = load<u8>(space - 1) == 44;
    const v = entry(kind, p, comma ? space - 1 : space);
    if (v == REFUSED) return REFUSED;
    store<i32>(rec + 4 * (8 + 5 * k + field), v);
    k++;
    p = !comma && load<u8>(space + 1) == 58 && load<u8>(space + 2) == 32 ? space + 3 : space + 1;
    space = nextSpace(p, b);
  }
  if (k >= MAX_ATTEMPTS) return REFUSED;
  const v = entry(kind, p, b);
  if (v == REFUSED) return REFUSED;
  store<i32>(rec + 4 * (8 + 5 * k + field), v);
  return k + 1;
}

function nextSpace(p: i32, b: i32): i32 {
  while (p < b && load<u8>(p) != 32) p++;
  return p;
}

function hasSpace(a: i32, b: i32): bool {
  if (b - a > 16) return nextSpace(a, b) < b;
  return (i8x16.bitmask(i8x16.eq(v128.load(a), i8x16.splat(32))) & ((1 << (b - a)) - 1)) != 0;
}

/** How many values an upstream field holds (line-facts.ts fast path), written into the record. */
function upstreamField(kind: i32, a: i32, b: i32, rec: i32): i32 {
  const n = b - a;
  if (n == 0 || (n == 1 && load<u8>(a) == 45)) return 0;
  const field = kind == ADDR ? 0 : kind - UPSTREAM_STATUS + 1;
  if (kind == ADDR) {
    if (hasSpace(a, b)) return list(kind, a, b, rec, field);
  } else if (kind == UPSTREAM_STATUS) {
    if (n != 3) return list(kind, a, b, rec, field);
  } else {
    const v = millis(a, b);
    if (v == REFUSED) return REFUSED;
    if (v < 0) return list(kind, a, b, rec, field);
  }
  const v = entry(kind, a, b);
  if (v == REFUSED) return REFUSED;
  store<i32>(rec + 4 * (8 + field), v);
  return 1;
}

/** True when the literal at LITERALS + at (n bytes) is at p: 8 bytes at a time, the rest masked. */
function literalAt(p: i32, at: i32, n: i32): bool {
  let i = 0;
  for (; i + 8 <= n; i += 8) if (load<u64>(p + i) != load<u64>(LITERALS + at + i)) return false;
  if (i == n) return true;
  const bits = <u64>((n - i) * 8);
  const mask = ((<u64>1) << bits) - 1;
  return ((load<u64>(p + i) ^ load<u64>(LITERALS + at + i)) & mask) == 0;
}

/**
 * Matches the line at p into record `rec` (flag 1; 2 when log-line-counts.ts counted it) or refuses
 * it (flag 0); returns its "\n".
 */
function matchLine(p: i32, rec: i32, timeAt: i32): i32 {
  store<i32>(rec, 0);
  const firstLength = load<i32>(PROGRAM + 12);
  if (!literalAt(p, load<i32>(PROGRAM + 8), firstLength)) return findNewline(p);
  p += firstLength;
  let addrs = 0;
  let statuses = 0;
  let connects = 0;
  let headers = 0;
  let responses = 0;
  let gotTime = false;
  store<i32>(rec + 16, -1);
  store<i32>(rec + 24, -1);
  store<i32>(rec + 28, -1);
  for (let i = 0; i < variableCount; i++) {
    const v = PROGRAM + 16 + 4 * VAR_INTS * i;
    const kind = load<i32>(v);
    const fixed = load<i32>(v + 4);
    const litAt = load<i32>(v + 8);
    const litLength = load<i32>(v + 12);
    let q: i32;
    if (fixed >= 0) {
      const nl = newlineWithin(p, fixed);
      if (nl >= 0) return nl;
      q = p + fixed;
    } else if (litLength == 0) {
      q = findNewline(p);
    } else {
      q = json ? findJson(p, v128.load(v + 16)) : find(p, v128.load(v + 16));
      const c = load<u8>(q);
      if (c == NL || (json && c == 92)) return findNewline(q);
    }
    if (!literalAt(q, litAt, litLength)) return findNewline(q);
    if (kind == SKIP) {
      // Most variables are only stepped over.
    } else if (kind == STATUS) {
      const s = status(p, q);
      if (s < 0) return findNewline(q);
      store<i32>(rec + 12, s);
    } else if (kind == TIME_LOCAL || kind == TIME_ISO) {
      const t = time(p, kind == TIME_LOCAL);
      if (isNaN(t)) return findNewline(q);
      store<f64>(timeAt, t);
      gotTime = true;
    } else if (kind == REQUEST_TIME) {
      const ms = millis(p, q);
      if (ms == REFUSED) return findNewline(q);
      store<i32>(rec + 16, ms);
    } else if (kind == URI) {
      store<i32>(rec + 24, p);
      store<i32>(rec + 28, q);
    } else {
      const n = upstreamField(kind, p, q, rec);
      if (n == REFUSED) return findNewline(q);
      if (kind == ADDR) addrs = n;
      else if (kind == UPSTREAM_STATUS) statuses = n;
      else if (kind == CONNECT) connects = n;
      else if (kind == HEADER) headers = n;
      else if (kind == RESPONSE) responses = n;
    }
    p = q + litLength;
  }
  if (load<u8>(p) != NL) return findNewline(p);
  // A value running to the line end must not take the "\r" of a CRLF line.
  if (litLengthOfLast() == 0 && load<u8>(p - 1) == 13) return p;
  if (!gotTime) store<f64>(timeAt, NaN);
  let attempts = addrs > statuses ? addrs : statuses;
  // A format with upstream times but no address or status (the nginx blog's upstream_time): each
  // time list holds one value per attempt, so the longest tells the attempts.
  if (!listsAttempts) attempts = max(connects, max(headers, responses));
  for (let k = 0; k < attempts; k++) {
    const at = rec + 4 * (8 + 5 * k);
    if (k >= addrs) store<i32>(at, 0);
    if (k >= statuses) store<i32>(at + 4, -1);
    if (k >= connects) store<i32>(at + 8, -1);
    if (k >= headers) store<i32>(at + 12, -1);
    if (k >= responses) store<i32>(at + 16, -1);
  }
  store<i32>(rec + 20, attempts);
  store<i32>(rec, countLine(rec, load<f64>(timeAt)) ? 2 : 1);
  return p;
}

function litLengthOfLast(): i32 {
  return variableCount == 0 ? 1 : load<i32>(PROGRAM + 16 + 4 * VAR_INTS * (variableCount - 1) + 12);
}

/**
 * Reads lines from `from` up to `to` (a "\n" at to - 1, or one the caller put at `to`), at most
 * MAX_LINES of them; record i holds flag, start and "\n" of line i. Returns the number of lines and
 * leaves where it stopped in `scanned`.
 */
export function scan(from: i32, to: i32): i32 {
  let p = from;
  let n = 0;
  while (p < to && n < MAX_LINES) {
    const rec = RECORDS + 4 * RECORD_INTS * n;
    // nginx never writes an empty line: JavaScript counts it as malformed.
    let nl = p;
    if (load<u8>(p) == NL) store<i32>(rec, 0);
    else nl = matchLine(p, rec, TIMES + 8 * n);
    store<i32>(rec + 4, p);
    store<i32>(rec + 8, nl);
    n++;
    p = nl + 1;
  }
  scanned = p;
  return n;
}
