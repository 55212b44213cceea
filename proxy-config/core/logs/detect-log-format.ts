import { isProxyopsError } from '../errors.js';
import { createLineFacts } from './line-facts.js';
import { LOG_FORMAT_PRESETS, createLogReaderKit, type LogFormatSpec } from './log-format-presets.js';
import { parseLogFormat, type LogFormatParts } from './parse-log-format.js';

/** How many of the first non-empty lines the formats are tried on. */
export const DETECT_SAMPLE_LINES = 50;

/**
 * The formats tried when none is named, most specific first: a line of the rendered format also
 * parses as `common` (its last variable takes the rest of the line), so `common` comes last.
 */
export const DETECTABLE_FORMATS: readonly LogFormatSpec[] = [
  'proxyops',
  'proxyops-1',
  'ingress-nginx',
  'proxyops-json',
  'proxyops-json-1',
  'json',
  'upstream-time',
  'upstream-time-spaced',
  'main',
  'combined',
  'common',
].map((name) => LOG_FORMAT_PRESETS[name]!);

/** How one format fared on the sample. */
export interface FormatTrial {
  spec: LogFormatSpec;
  hits: number;
}

/** The outcome of trying formats on the first lines of a log. */
export interface FormatDetection {
  /** The format that parses more than half of the sample; null when none does. */
  spec: LogFormatSpec | null;
  /** The format that parsed the most lines (the hint when `spec` is null). */
  closest: FormatTrial | null;
  sampled: number;
  /** The first sample line none of the formats parses, for the error message. */
  unmatched: string | null;
}

/** The first `limit` non-empty lines of a byte string, a trailing partial line left out when `complete` is false. */
export function sampleLines(text: string, limit = DETECT_SAMPLE_LINES, complete = true): string[] {
  const lines = text.split('\n');
  if (!complete && lines.length > 1) lines.pop();
  return lines
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
    .filter(Boolean)
    .slice(0, limit);
}

/** JSON lines' keys, so a JSON log tells only the figures its keys hold (see `jsonLinesCapabilities`). */
function withKeys(spec: LogFormatSpec, lines: readonly string[]): LogFormatSpec {
  if (spec.kind !== 'json-lines') return spec;
  const keys = new Set<string>();
  for (const line of lines) {
    try {
      const value: unknown = JSON.parse(line);
      if (value && typeof value === 'object' && !Array.isArray(value))
        for (const key of Object.keys(value)) keys.add(key);
    } catch {
      // Not JSON: this line adds no keys.
    }
  }
  return { ...spec, keys: [...keys].sort() };
}

/**
 * A test that a line holds every literal of the format, in order. Each value ends at the first
 * occurrence of the literal after it, so a line failing this cannot be parsed by the format.
 */
function literalsInOrder(parts: LogFormatParts): (line: string) => boolean {
  return (line) => {
    let at = 0;
    for (const literal of parts.literals) {
      const found = line.indexOf(literal, at);
      if (found < 0) return false;
      at = found + literal.length;
    }
    return true;
  };
}

/**
 * Tries each format on the sample lines (byte strings) and takes the one that parses the most of
 * them, when that is more than half; ties go to the earlier, more specific format.
 */
export function detectLogFormat(
  lines: readonly string[],
  candidates: readonly LogFormatSpec[] = DETECTABLE_FORMATS,
): FormatDetection {
  let closest: FormatTrial | null = null;
  const matchedBySome = new Set<number>();
  for (const spec of candidates) {
    let kit;
    try {
      // Compiling a format's matcher is most of what trying it costs (on a one-line log, most of
      // the run): a format none of whose lines holds its literal text cannot match, so it scores 0.
      if (spec.kind === 'format' && !lines.some(literalsInOrder(parseLogFormat(spec.format, spec.escape))))
        continue;
      kit = createLogReaderKit(spec);
    } catch (error) {
      // A config's log_format without $status cannot give statistics: it is not a candidate.
      if (isProxyopsError(error)) continue;
      throw error;
    }
    const { read } = kit.createReader();
    const facts = createLineFacts();
    let hits = 0;
    lines.forEach((line, i) => {
      if (!read(line, 0, line.length, facts)) return;
      hits++;
      matchedBySome.add(i);
    });
    if (hits > (closest?.hits ?? 0)) closest = { spec, hits };
    // A later format can at best tie, and ties go to the earlier one: compiling the rest is waste.
    if (hits === lines.length && hits > 0) break;
  }
  const unmatched = lines.find((_, i) => !matchedBySome.has(i)) ?? null;
  const chosen = closest !== null && closest.hits * 2 > lines.length ? withKeys(closest.spec, lines) : null;
  return { spec: chosen, closest, sampled: lines.length, unmatched };
}
