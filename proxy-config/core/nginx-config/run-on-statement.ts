import { takenSomewhere } from './check-directives.js';
import type { NginxDirective } from './types.js';

/**
 * Directives whose own handler refuses a directive's name among their arguments, where their
 * argument count alone lets it through: a log level (error_log), status code (error_page), time
 * (expires, keepalive_timeout), listen parameter, rewrite flag, upstream server parameter or
 * protocol name. access_log and add_header take some words: see `handlerRefuses`. Checked against
 * nginx 1.22 -t.
 */
const HANDLER_REFUSES_EXTRA_WORDS: ReadonlySet<string> = new Set([
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
export function runOnRefused(
  directive: NginxDirective,
  opened: boolean,
  logFormats: ReadonlySet<string>,
): boolean {
  return handlerRefuses(directive, logFormats) || !takenSomewhere(directive, opened);
}

/** access_log's words after the path: its format, then buffer=, gzip, flush=, if= parameters. */
const ACCESS_LOG_PARAMETER = /^(buffer=|gzip(=|$)|flush=|if=)/;

/**
 * Whether the directive's own handler refuses the words it ran on into. access_log takes a
 * directive's name as its format when a log_format of that name was read before it (nginx looks
 * formats up as it reads, so only earlier ones count: `logFormats`); add_header takes any value,
 * and a third word only if it is `always`.
 */
function handlerRefuses(directive: NginxDirective, logFormats: ReadonlySet<string>): boolean {
  const { args } = directive;
  if (directive.name === 'access_log')
    return (
      args[0] === 'off' ||
      (args[1] !== undefined && !logFormats.has(args[1])) ||
      args.slice(2).some((word) => !ACCESS_LOG_PARAMETER.test(word))
    );
  if (directive.name === 'add_header') return args.length === 3 && args[2] !== 'always';
  return HANDLER_REFUSES_EXTRA_WORDS.has(directive.name);
}
