import { addFacts } from './add-facts.js';
import { FIXED_LENGTH, type CompiledLogFormat } from './compile-log-format.js';
import { TIME_VARIABLES } from './line-facts.js';
import { scanLogText, type LogScan } from './scan-log-text.js';
import { createCountsMover } from './wasm-line-counts.js';

/** Variable kinds of the scanner's program, as proxy-config/assembly/log-line-scanner.ts numbers them. */
const KIND: Record<string, number> = {
  status: 1,
  time_local: 2,
  time_iso8601: 3,
  request_time: 4,
  upstream_addr: 5,
  upstream_status: 6,
  upstream_connect_time: 7,
  upstream_header_time: 8,
  upstream_response_time: 9,
};
const URI = 10;

interface ScannerExports {
  memory: WebAssembly.Memory;
  configure(): void;
  scan(from: number, to: number): number;
  setCounting(on: boolean, upstream: boolean, headerTime: boolean, path: boolean, intervalMs: number): void;
  clearTimeline(): void;
  [name: string]: unknown;
}

/**
 * The WebAssembly line scanner of one format in one thread: the caller reads whole lines into
 * `input()` and calls `count`; lines the scanner refuses are read by the JavaScript readers.
 */
export interface WasmLineScanner {
  /** Where input bytes go; valid until the next `reserve`. */
  input(): Uint8Array;
  /** Makes room for `bytes` of input (and the scanner's slack past them). */
  reserve(bytes: number): void;
  /** Counts the lines of `input()[0, length)` into `scan`: whole lines, the last may lack its "\n". */
  count(scan: LogScan, length: number): void;
}

/** Bytes the SIMD search may read past the end of the input. */
const SLACK = 16;

/**
 * A scanner for `format` from the compiled scanner module, or null when the format has something the
 * scanner does not read ($msec, literal bytes beyond latin1, line breaks, too many variables).
 */
export function createWasmLineScanner(
  module: WebAssembly.Module,
  format: CompiledLogFormat,
): WasmLineScanner | null {
  const exports = new WebAssembly.Instance(module).exports as unknown as ScannerExports;
  const constant = (name: string) => (exports[name] as WebAssembly.Global).value as number;
  const { literals, variables, escape } = format;
  const timeKind = TIME_VARIABLES.find((k) => format.slots[k] !== undefined);
  if (timeKind === 'msec' || variables.length > constant('MAX_VARIABLES')) return null;
  if (literals.some((literal) => /[\u0100-\uffff\n\r]/.test(literal))) return null;
  if (escape === 'json' && literals.some((literal) => literal.includes('\\'))) return null;
  const slot = (name: string) => format.slots[name] ?? -1;
  const requestSlot = slot('request');
  const uriSlot = requestSlot >= 0 ? requestSlot : Math.max(slot('request_uri'), slot('uri'));
  const uriIsRequestLine = uriSlot >= 0 && uriSlot === requestSlot;

  const memory = exports.memory;
  const INPUT = constant('INPUT');
  const PROGRAM = constant('PROGRAM');
  const LITERALS = constant('LITERALS');
  const RECORDS = constant('RECORDS');
  const TIMES = constant('TIMES');
  const ADDRESSES = constant('ADDRESSES');
  const ARENA = constant('ARENA');
  const STRIDE = constant('RECORD_INTS');
  const addressCount = exports.addressCount as WebAssembly.Global;
  const scanned = exports.scanned as WebAssembly.Global;

  let capacity = 0;
  let bytes = new Uint8Array(0);
  let buffer = Buffer.alloc(0);
  let records = new Int32Array(0);
  let times = new Float64Array(0);
  let addresses = new Int32Array(0);
  const reserve = (size: number) => {
    const pages = Math.ceil((INPUT + size + SLACK) / 65536);
    if (pages > memory.buffer.byteLength / 65536) memory.grow(pages - memory.buffer.byteLength / 65536);
    capacity = memory.buffer.byteLength - INPUT - SLACK;
    // Views of the whole memory, made again since growing detaches the old buffer.
    bytes = new Uint8Array(memory.buffer);
    buffer = Buffer.from(memory.buffer);
    records = new Int32Array(memory.buffer, RECORDS, (TIMES - RECORDS) / 4);
    times = new Float64Array(memory.buffer, TIMES, constant('MAX_LINES'));
    addresses = new Int32Array(memory.buffer, ADDRESSES, 2 * constant('MAX_ADDRESSES'));
  };
  reserve(0);

  // The program: variable count, escape=json, first literal, then kind, width and literal per variable
  // (8 ints each, the scanner fills the last 4).
  const program = new Int32Array(memory.buffer, PROGRAM, 4 + 8 * variables.length);
  let literalAt = 0;
  const literal = (text: string) => {
    const at = literalAt;
    bytes.set(Buffer.from(text, 'latin1'), LITERALS + at);
    literalAt += text.length;
    return at;
  };
  program.set([variables.length, escape === 'json' ? 1 : 0, literal(literals[0]!), literals[0]!.length]);
  variables.forEach((name, i) => {
    const first = slot(name) === i;
    const kind = !first
      ? 0
      : i === uriSlot
        ? URI
        : name === timeKind || !name.startsWith('time_')
          ? KIND[name]
          : 0;
    const next = literals[i + 1]!;
    program.set([kind ?? 0, FIXED_LENGTH[name] ?? -1, literal(next), next.length], 4 + 8 * i);
  });
  exports.configure();

  const names: string[] = ['-'];
  const moveCounts = createCountsMover(exports, names);
  const count = (scan: LogScan, length: number) => {
    const { state, facts, filter } = scan;
    const caps = state.capabilities;
    // Without a filter, the scanner counts most lines itself (see log-line-counts.ts).
    exports.setCounting(filter === null, caps.upstream, caps.headerTime, caps.path, state.intervalMs);
    const escape = scan.kit.escape;
    const { addr, upstreamStatus, connectMs, headerMs, responseMs } = facts;
    // Locals: the views change only in `reserve`, and V8 keeps locals in registers.
    const rec = records;
    const at = times;
    // The last line may lack its "\n": the scanner stops at one put just past it.
    if (length > 0 && bytes[INPUT + length - 1] !== 10) bytes[INPUT + length] = 10;
    let from = INPUT;
    const to = INPUT + length;
    while (from < to) {
      const n = exports.scan(from, to);
      from = scanned.value as number;
      for (let id = names.length; id < (addressCount.value as number); id++) {
        const start = ARENA + addresses[2 * id]!;
        names.push(buffer.toString('latin1', start, start + addresses[2 * id + 1]!));
      }
      for (let i = 0; i < n; i++) {
        const r = i * STRIDE;
        if (rec[r] === 2) {
          scan.lineNumber++;
          state.lines++;
          continue;
        }
        if (rec[r] === 0) {
          // With its "\n" (or the one put past the last line), so an empty line counts too.
          scanLogText(scan, buffer.toString('latin1', rec[r + 1]!, rec[r + 2]! + 1));
          continue;
        }
        scan.lineNumber++;
        state.lines++;
        const status = rec[r + 3]!;
        facts.status = status;
        facts.timeMs = at[i]!;
        facts.requestTimeMs = rec[r + 4]!;
        const attempts = rec[r + 5]!;
        facts.attempts = attempts;
        for (let k = 0, a = r + 8; k < attempts; k++, a += 5) {
          addr[k] = names[rec[a]!]!;
          upstreamStatus[k] = rec[a + 1]!;
          connectMs[k] = rec[a + 2]!;
          headerMs[k] = rec[a + 3]!;
          responseMs[k] = rec[a + 4]!;
        }
        facts.path = null;
        facts.requestAt = -1;
        // Only 5xx lines and filters read the path: the others never turn it into a string.
        if (rec[r + 6]! >= 0 && ((status >= 500 && status < 600) || filter !== null)) {
          facts.src = buffer.toString('latin1', rec[r + 6]!, rec[r + 7]!);
          facts.requestAt = 0;
          facts.requestEnd = facts.src.length;
          facts.uriIsRequestLine = uriIsRequestLine;
        }
        if (filter !== null && !filter(facts)) state.filtered++;
        else addFacts(state, facts, escape);
      }
    }
    moveCounts(state);
  };
  return {
    input: () => bytes.subarray(INPUT, INPUT + capacity),
    reserve,
    count,
  };
}
