import type { AccessRecord } from '../core/diagnose/access-record.js';
import { toAccessRecord } from '../core/diagnose/to-access-record.js';
import { isProxyopsError, ProxyopsError } from '../core/errors.js';
import { createLineFacts, linePath } from '../core/logs/line-facts.js';
import {
  createLogReaderKit,
  type LogFormatSpec,
  type LogReaderKit,
} from '../core/logs/log-format-presets.js';
import { readFileTail } from './read-input-file.js';

const SAMPLE_LINES = 20;

/** An access log read into records, and whether its format tells proxy-made responses apart. */
export interface AccessLogRead {
  records: AccessRecord[];
  format: string;
  splitKnown: boolean;
  connectKnown: boolean;
  /** Only the last LOG_TAIL_BYTES were read. */
  truncated: boolean;
}

function lineBounds(text: string): Array<[number, number]> {
  const bounds: Array<[number, number]> = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) bounds.push([start, end]);
    start = end + 1;
  }
  return bounds;
}

/** The reader kit of a format; null when the access-log parser cannot use that format (it is then not tried). */
function kitOf(spec: LogFormatSpec): LogReaderKit | null {
  try {
    return createLogReaderKit(spec);
  } catch (error) {
    if (isProxyopsError(error)) return null;
    throw error;
  }
}

/**
 * Reads an access log with the issue-4 log parser, in the format (config's own first, then the
 * presets) that matches most of its first lines. BAD_OPTION when unreadable or when no format matches.
 */
export async function readAccessRecords(
  path: string,
  formats: readonly LogFormatSpec[],
): Promise<AccessLogRead> {
  const { text, truncated } = await readFileTail(path, '--access-log', 'latin1');
  const lines = lineBounds(text);
  const sample = lines.slice(0, SAMPLE_LINES);
  let best: { kit: LogReaderKit; hits: number } | null = null;
  for (const spec of formats) {
    const kit = kitOf(spec);
    if (!kit) continue;
    const { read } = kit.createReader();
    const facts = createLineFacts();
    const hits = sample.filter(([start, end]) => read(text, start, end, facts)).length;
    if (hits > (best?.hits ?? 0) || (lines.length === 0 && !best)) best = { kit, hits };
  }
  if (!best) {
    throw new ProxyopsError(
      'BAD_OPTION',
      `--access-log ${path} matches none of the log formats tried (${formats.map((f) => f.name).join(', ')}); pass --config with its log_format`,
    );
  }
  const { kit } = best;
  const { read } = kit.createReader();
  const facts = createLineFacts();
  const records: AccessRecord[] = [];
  for (const [start, end] of lines) {
    if (read(text, start, end, facts)) records.push(toAccessRecord(facts, linePath(facts, kit.escape)));
  }
  const connectKnown = kit.spec.kind === 'json-lines' || kit.spec.format.includes('$upstream_connect_time');
  return { records, format: kit.spec.name, splitKnown: kit.capabilities.headerTime, connectKnown, truncated };
}
