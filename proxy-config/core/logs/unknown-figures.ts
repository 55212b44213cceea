import { PROXYOPS_LOG_FORMAT_TEXT, REQUEST_ID_VARIABLE } from '../render/log-formats.js';
import type { FactsCapabilities } from './line-facts.js';

/** A figure the log's format cannot give, and the variables it would need. */
export interface UnknownFigure {
  figure: string;
  needs: string[];
}

/** Each figure that needs variables, keyed by the capability that holds when they are logged. */
const FIGURES: ReadonlyArray<{ capability: keyof FactsCapabilities; figure: string; needs: string[] }> = [
  {
    capability: 'headerTime',
    figure: 'proxy-generated vs upstream-returned split',
    needs: ['$upstream_header_time'],
  },
  {
    capability: 'upstream',
    figure: 'upstream statuses and per-upstream figures',
    needs: ['$upstream_addr', '$upstream_status'],
  },
  { capability: 'requestTime', figure: 'request-time percentiles', needs: ['$request_time'] },
  { capability: 'time', figure: 'timeline and --since/--until', needs: ['$time_local'] },
  { capability: 'path', figure: 'top 5xx paths', needs: ['$request'] },
];

/** The log_format line that logs every variable the statistics read: the rendered format, with nginx's own request id. */
export const LOG_FORMAT_TO_ADD = `log_format proxyops '${PROXYOPS_LOG_FORMAT_TEXT.replace(REQUEST_ID_VARIABLE, '$request_id')}';`;

/** The figures a format with these capabilities cannot give; reported as unknown, never as zero. */
export function unknownFigures(capabilities: FactsCapabilities): UnknownFigure[] {
  return FIGURES.filter((row) => !capabilities[row.capability]).map(({ figure, needs }) => ({
    figure,
    needs,
  }));
}
