import { ProxyopsError } from '../errors.js';
import { PROBE_HEADERS } from '../version.js';
import { compileLogFormat } from '../logs/compile-log-format.js';
import { detectLogFormat, sampleLines } from '../logs/detect-log-format.js';
import { createLineFacts, linePath } from '../logs/line-facts.js';
import { createLogReaderKit, type LogFormatSpec } from '../logs/log-format-presets.js';
import { unknownFigures, type UnknownFigure } from '../logs/unknown-figures.js';
import type { AccessRecord } from './access-record.js';
import { toAccessRecord } from './to-access-record.js';

/** The User-Agent product of proxyops' own probes; log diagnosis leaves their lines out. */
const PROBE_USER_AGENT_PRODUCT = `${PROBE_HEADERS['user-agent'].split('/')[0]}/`;

/** An access log read into records, and what its format could not tell. */
export interface AccessLogRead {
  records: AccessRecord[];
  /** The format the lines were read in; null when there was no line to tell it by. */
  format: string | null;
  splitKnown: boolean;
  connectKnown: boolean;
  /** Lines of proxyops' own probes, left out. */
  probeLines: number;
  unknown: UnknownFigure[];
}

/**
 * A reader of `$server_port` (the port of the server that answered) from a line, when the format logs
 * it; null otherwise. Diagnosis alone asks for it, so the statistics' line reader stays as it is.
 */
function serverPortReader(
  spec: LogFormatSpec,
): ((text: string, start: number, end: number) => string | null) | null {
  if (spec.kind === 'json-lines') {
    if (spec.keys && !spec.keys.includes('server_port')) return null;
    return (text, start, end) => {
      try {
        const value = (JSON.parse(text.slice(start, end)) as { server_port?: unknown }).server_port;
        return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
      } catch {
        return null;
      }
    };
  }
  const format = compileLogFormat(spec.format, spec.escape);
  const at = format.slots['server_port'];
  if (at === undefined) return null;
  const { match } = format.createMatcher();
  const pos = new Int32Array(format.variables.length * 2);
  return (text, start, end) =>
    match(text, start, end, pos) ? text.slice(pos[2 * at]!, pos[2 * at + 1]!) : null;
}

/**
 * Reads access-log text (a byte string) with the log parser, in the format (the config's own first,
 * then the known ones) that parses most of its first lines. BAD_OPTION when none parses most of them.
 */
export function parseAccessRecords(
  text: string,
  formats: readonly LogFormatSpec[],
  label: string,
): AccessLogRead {
  const detection = detectLogFormat(sampleLines(text), formats);
  if (!detection.spec && detection.sampled > 0) {
    const closest = detection.closest;
    throw new ProxyopsError(
      'LOG_FORMAT_UNKNOWN',
      `${label}: most of its first ${detection.sampled} lines match no known log format` +
        (closest ? ` (closest: ${closest.spec.name}, ${closest.hits} lines)` : '') +
        '; give --config with the log_format that writes it',
    );
  }
  const kit = createLogReaderKit(detection.spec ?? formats[0]!);
  const { read } = kit.createReader();
  const facts = createLineFacts();
  const serverPort = serverPortReader(kit.spec);
  const records: AccessRecord[] = [];
  let probeLines = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      if (text.slice(start, end).includes(PROBE_USER_AGENT_PRODUCT)) probeLines++;
      else if (read(text, start, end, facts)) {
        const record = toAccessRecord(facts, linePath(facts, kit.escape));
        const port = serverPort?.(text, start, end);
        if (port) record.serverPort = port;
        records.push(record);
      }
    }
    start = end + 1;
  }
  const connectKnown =
    kit.spec.kind === 'json-lines'
      ? (kit.spec.keys ?? ['upstream_connect_time']).includes('upstream_connect_time')
      : kit.spec.format.includes('$upstream_connect_time');
  return {
    records,
    // Without a line read, the format tried is only a guess: never name one for a file nothing says is written in it.
    format: records.length > 0 ? kit.spec.name : null,
    splitKnown: kit.capabilities.headerTime,
    connectKnown,
    probeLines,
    unknown: unknownFigures(kit.capabilities),
  };
}
