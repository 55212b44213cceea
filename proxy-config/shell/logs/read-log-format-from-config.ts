import { ProxyopsError } from '../../core/errors.js';
import type { LogFormatSpec } from '../../core/logs/log-format-presets.js';
import { dirname, resolve } from 'node:path';
import { accessLogFor, logFormatNamed } from '../../core/nginx-config/configured-logs.js';
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

/**
 * The format of the `access_log` lines of an nginx config that write `inputs`, for `--nginx-conf`
 * without `--format-name`: the config says which format writes each file. Relative access_log paths
 * are read against the config's directory (nginx -p DIR -c DIR/nginx.conf). BAD_OPTION when an input
 * is written by no access_log line, or the inputs by lines of different formats.
 */
export async function readLogFormatOfInputs(
  confPath: string,
  inputs: readonly string[],
): Promise<LogFormatSpec> {
  const config = await readNginxConfig(confPath);
  const files = inputs.filter((input) => input !== '-');
  if (files.length === 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--nginx-conf without --format-name needs log files to look up (not standard input)',
    );
  const specs = files.map((file) => {
    const found = accessLogFor(config, dirname(resolve(confPath)), resolve(file));
    if (!found)
      throw new ProxyopsError(
        'BAD_OPTION',
        `--nginx-conf ${confPath}: no access_log line writes ${file}; give --format-name NAME (the log_format to read)`,
      );
    return found.spec;
  });
  const names = [...new Set(specs.map((spec) => spec.name))];
  if (names.length > 1)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--nginx-conf ${confPath}: the inputs are written in ${names.length} formats (${names.join(', ')}); give the files of one format`,
    );
  return specs[0]!;
}
