import { ProxyopsError } from '../errors.js';
import type { NginxDirective, RunOn } from './types.js';

/**
 * Which check an NGINX_CONFIG_INVALID error failed (`details.check`, stable): `syntax` for the
 * tokenizer's own errors, the others for the checks `nginx -t` makes before running a directive.
 */
export type NginxConfigCheck =
  | 'syntax'
  | 'bom'
  | 'if-condition'
  | 'context'
  | 'block'
  | 'terminator'
  | 'argument-count'
  | 'upstream-empty';

/** A parse error pointing at `file:line`, in the shape every caller shows as is. */
export function nginxSyntaxError(
  file: string,
  line: number,
  message: string,
  check: NginxConfigCheck = 'syntax',
): ProxyopsError {
  return new ProxyopsError('NGINX_CONFIG_INVALID', `${file}:${line}: ${message}`, {
    details: { file, line, check },
  });
}

/** The `missing ";"` syntax error at the statement's first word, saying what shows it (`where`). */
export function missingSemicolon(
  file: string,
  line: number,
  words: readonly string[],
  where: string,
): ProxyopsError {
  const shown = words.join(' ');
  return nginxSyntaxError(
    file,
    line,
    `missing ";" after "${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}" (${where})`,
  );
}

/**
 * The error for a directive that ran on into the next line's (its `runsOnAt`) where nginx refuses
 * the joined statement: the lost `;`, which is what to fix, rather than what nginx says of it.
 */
export function runOnError(directive: NginxDirective, { line, word, arg }: RunOn): ProxyopsError {
  return missingSemicolon(
    directive.file,
    directive.line,
    [directive.name, ...directive.args.slice(0, arg)],
    `"${word}" on line ${line} starts a new directive`,
  );
}
