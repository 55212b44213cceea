import { DETECTABLE_FORMATS } from '../logs/detect-log-format.js';
import type { LogFormatSpec } from '../logs/log-format-presets.js';
import type { LogEscape } from '../logs/parse-log-format.js';
import { walkDirectives } from '../nginx-config/query.js';
import type { NginxConfig } from '../nginx-config/types.js';

/** The formats tried when the config names none that matches: the known formats, most specific first. */
export const DEFAULT_LOG_FORMATS: readonly LogFormatSpec[] = DETECTABLE_FORMATS;

/** The `log_format` definitions of a config, as format specs (tried before the presets). */
export function logFormatsOf(config: NginxConfig): LogFormatSpec[] {
  const found: LogFormatSpec[] = [];
  walkDirectives(config, (directive) => {
    if (directive.name !== 'log_format') return;
    const [name = '', ...rest] = directive.args;
    const escapeArg = rest[0]?.startsWith('escape=') ? rest.shift() : undefined;
    const escape = (escapeArg?.slice('escape='.length) ?? 'default') as LogEscape;
    found.push({ kind: 'format', name, format: rest.join(''), escape });
  });
  return found;
}
