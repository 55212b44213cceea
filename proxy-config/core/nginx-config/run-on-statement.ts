import { takenSomewhere } from './check-directives.js';
import type { NginxDirective } from './types.js';

/**
 * Directives whose own handler refuses a directive's name among their arguments, where their
 * argument count alone lets it through: a log format (access_log), log level (error_log), status
 * code (error_page), time (expires, keepalive_timeout), listen parameter, `always` (add_header),
 * rewrite flag, upstream server parameter or protocol name. Checked against nginx 1.22 -t.
 */
const HANDLER_REFUSES_EXTRA_WORDS: ReadonlySet<string> = new Set([
  'access_log',
  'add_header',
  'error_log',
  'error_page',
  'expires',
  'keepalive_timeout',
  'listen',
  'proxy_next_upstream',
  'rewrite',
  'server',
  'ssl_protocols',
]);

/**
 * True when nginx refuses a statement that ran on into the next line's directive, wherever it
 * stands: no form takes that many arguments, or the directive's handler refuses the words. A
 * refusal that depends on the block it is in is checkDirectives'.
 */
export function runOnRefused(directive: NginxDirective, opened: boolean): boolean {
  return HANDLER_REFUSES_EXTRA_WORDS.has(directive.name) || !takenSomewhere(directive, opened);
}
