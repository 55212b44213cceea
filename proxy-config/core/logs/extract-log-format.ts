import { ProxyopsError } from '../errors.js';
import type { LogFormatSpec } from './log-format-presets.js';
import type { LogEscape } from './parse-log-format.js';

/**
 * Turns the arguments of a `log_format NAME [escape=default|json|none] 'part' 'part' ...;` directive
 * (quotes already removed) into a format spec; nginx joins the parts with nothing between them.
 */
export function extractLogFormat(args: string[], where: string): LogFormatSpec {
  const [name, ...rest] = args;
  let escape: LogEscape = 'default';
  const first = rest[0];
  if (first?.startsWith('escape=')) {
    const value = first.slice('escape='.length);
    if (value !== 'default' && value !== 'json' && value !== 'none')
      throw new ProxyopsError('LOG_FORMAT_INVALID', `${where}: log_format ${name}: unknown ${first}`);
    escape = value;
    rest.shift();
  }
  if (!name || rest.length === 0)
    throw new ProxyopsError('LOG_FORMAT_INVALID', `${where}: log_format ${name ?? ''} has no format string`);
  return { kind: 'format', name, format: rest.join(''), escape };
}
