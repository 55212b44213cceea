import type { NginxDirective } from './types.js';
import { NGINX_VERSION_CHANGES, type NginxVersionChange } from './version-changes.js';

/** True when the statement holds the row's parameter (`resolve`, or `route=…` for `route=`). */
export function takesParameter(row: NginxVersionChange, directive: NginxDirective): boolean {
  const word = row.parameter ?? '';
  // The first word is most often an address (`server`, `listen`), never one of these words.
  return directive.args.some((arg) => (word.endsWith('=') ? arg.startsWith(word) : arg === word));
}

/** True when a later release takes this statement with one of its new parameters (`keepalive 16 local`). */
export function hasLaterParameter(directive: NginxDirective): boolean {
  return NGINX_VERSION_CHANGES.some(
    (row) =>
      row.kind === 'parameter' && row.directives.includes(directive.name) && takesParameter(row, directive),
  );
}
