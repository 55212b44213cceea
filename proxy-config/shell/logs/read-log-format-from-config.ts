import { ProxyopsError } from '../../core/errors.js';
import type { LogFormatSpec } from '../../core/logs/log-format-presets.js';
import { logFormatNamed } from '../../core/nginx-config/configured-logs.js';
import { readNginxConfig } from '../nginx/read-nginx-config.js';

/**
 * Reads `log_format NAME` from an nginx config (its includes too) as a format spec; `combined`, built
 * into nginx, needs no line.
 */
export async function readLogFormatFromConfig(confPath: string, name: string): Promise<LogFormatSpec> {
  const spec = logFormatNamed(await readNginxConfig(confPath), name);
  if (!spec)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--format-name: no "log_format ${name}" in ${confPath} or the files it includes`,
    );
  return spec;
}
