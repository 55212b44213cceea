import { effectiveDirectives, rootBlock, type ScopeChain } from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';

/** nginx's built-in `combined` format (used when `access_log` names no format, or is absent). */
const COMBINED =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"';

/** An access log in effect somewhere, with the text of its format. */
export interface AccessLogInEffect {
  /** The `access_log` directive, or undefined for nginx's default log (`logs/access.log combined`). */
  directive: NginxDirective | undefined;
  formatName: string;
  /** The format's text (all its strings joined), or undefined when the format is not defined here. */
  format: string | undefined;
  /** Where to report: the directive, or the block that falls back to the default log. */
  file: string;
  line: number;
}

/** The `log_format` definitions of the config by name, `combined` included. */
export function logFormatsOf(config: NginxConfig): Map<string, string> {
  const formats = new Map([['combined', COMBINED]]);
  const visit = (block: NginxDirective) => {
    for (const child of block.children ?? []) {
      if (child.name === 'log_format') {
        const [name = '', ...rest] = child.args;
        formats.set(name, rest.filter((part) => !part.startsWith('escape=')).join(''));
      } else if (child.name === 'http') visit(child);
    }
  };
  visit(rootBlock(config));
  return formats;
}

/**
 * The access logs written for requests handled at the end of `chain` (`access_log off` excluded).
 * With no `access_log` in effect nginx's default log applies, reported at `fallbackBlock`; pass
 * undefined for a snippet, whose main config may well set one.
 */
export function accessLogsInEffect(
  chain: ScopeChain,
  formats: Map<string, string>,
  fallbackBlock: NginxDirective | undefined,
): AccessLogInEffect[] {
  const directives = effectiveDirectives(chain, 'access_log');
  if (directives.length === 0 && !fallbackBlock) return [];
  if (directives.length === 0 && fallbackBlock)
    return [
      {
        directive: undefined,
        formatName: 'combined',
        format: formats.get('combined'),
        file: fallbackBlock.file,
        line: fallbackBlock.line,
      },
    ];
  return directives
    .filter((d) => d.args[0] !== 'off')
    .map((d) => {
      const formatName = d.args[1] ?? 'combined';
      return { directive: d, formatName, format: formats.get(formatName), file: d.file, line: d.line };
    });
}

/** The server block a chain runs through (its default log is reported there). */
export function serverOf(chain: ScopeChain): NginxDirective | undefined {
  return chain.find((block) => block.name === 'server');
}
