import { ProxyopsError } from '../../core/errors.js';
import { extractLogFormat } from '../../core/logs/extract-log-format.js';
import type { LogFormatSpec } from '../../core/logs/log-format-presets.js';
import { walkDirectives } from '../../core/nginx-config/query.js';
import type { NginxDirective } from '../../core/nginx-config/types.js';
import { readNginxConfig } from '../nginx/read-nginx-config.js';

/** Reads `log_format NAME` from an nginx config (its includes too) as a format spec. */
export async function readLogFormatFromConfig(confPath: string, name: string): Promise<LogFormatSpec> {
  const config = await readNginxConfig(confPath);
  const found: NginxDirective[] = [];
  walkDirectives(config, (directive) => {
    if (directive.name === 'log_format' && directive.args[0] === name) found.push(directive);
  });
  const directive = found[0];
  if (!directive)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--format-name: no "log_format ${name}" in ${confPath} or the files it includes`,
    );
  return extractLogFormat(directive.args, `${directive.file}:${directive.line}`);
}
