import { addFacts } from './add-facts.js';
import { bytesToText } from './decode-log-value.js';
import { createLineFacts, type FactsReader, type LineFacts } from './line-facts.js';
import type { LogReaderKit } from './log-format-presets.js';
import { MAX_SAMPLES, type StatsState } from './stats-state.js';

/** One reading of one input: the reader, the filter, the state it adds to, and where it is in the input. */
export interface LogScan {
  state: StatsState;
  read: FactsReader;
  reset(): void;
  filter: ((facts: LineFacts) => boolean) | null;
  kit: LogReaderKit;
  facts: LineFacts;
  input: string;
  /** Lines read so far in this input (or this byte range of it). */
  lineNumber: number;
}

/** Longest malformed line kept as a sample, in bytes. */
const SAMPLE_LENGTH = 300;

/** Starts a scan of one input (or byte range) into `state`. */
export function createLogScan(
  kit: LogReaderKit,
  state: StatsState,
  input: string,
  filter: ((facts: LineFacts) => boolean) | null = null,
): LogScan {
  const { read, reset } = kit.createReader();
  return { state, read, reset, filter, kit, facts: createLineFacts(), input, lineNumber: 0 };
}

/**
 * Counts every line of `s`, a byte string (latin1-decoded bytes) holding whole lines; a last line
 * without "\n" counts as a line. A line that does not match is counted and sampled, never fatal.
 */
export function scanLogText(scan: LogScan, s: string): void {
  const { state, read, filter, facts } = scan;
  const escape = scan.kit.escape;
  scan.reset();
  let start = 0;
  const length = s.length;
  while (start < length) {
    let nl = s.indexOf('\n', start);
    if (nl < 0) nl = length;
    let end = nl;
    if (end > start && s.charCodeAt(end - 1) === 13) end--;
    scan.lineNumber++;
    state.lines++;
    if (end === start) {
      // nginx never writes an empty line; count it like any line that does not match.
      noteMalformed(scan, s, start, end);
    } else if (!read(s, start, end, facts)) {
      noteMalformed(scan, s, start, end);
    } else if (filter !== null && !filter(facts)) {
      state.filtered++;
    } else {
      addFacts(state, facts, escape);
    }
    start = nl + 1;
  }
}

function noteMalformed(scan: LogScan, s: string, start: number, end: number): void {
  const state = scan.state;
  state.malformed++;
  if (state.malformedSamples.length < MAX_SAMPLES) {
    const cut = end - start > SAMPLE_LENGTH;
    const text = bytesToText(s.slice(start, cut ? start + SAMPLE_LENGTH : end));
    state.malformedSamples.push({ input: scan.input, line: scan.lineNumber, text: cut ? `${text}…` : text });
  }
}
