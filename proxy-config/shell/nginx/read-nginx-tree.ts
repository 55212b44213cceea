import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import type { NginxConfig } from '../../core/nginx-config/types.js';
import { describeErrno } from '../describe-path.js';
import { readNginxConfig } from './read-nginx-config.js';

/** A hand-written tree as nginx reads it: its main file, every file by the path nginx names it, and the parse. */
export interface ReadTree {
  conf: string;
  files: Map<string, string>;
  config: NginxConfig;
}

/**
 * Reads the tree of `conf` with the one config reader (includes and wildcards resolved as nginx
 * does, each file under the path the include names, a symlinked site by its link). The checks are
 * nginx's own at apply time (nginx -t on the copy): a directive of a newer nginx must not stop it.
 */
export async function readNginxTree(conf: string): Promise<ReadTree> {
  const main = resolve(conf);
  const config = await readNginxConfig(main, { checkDirectives: false });
  const files = new Map<string, string>();
  for (const file of config.files)
    files.set(
      file,
      await readFile(file, 'utf8').catch((error: unknown) => {
        throw new ProxyopsError('NGINX_CONFIG_UNREADABLE', `cannot read ${file}: ${describeErrno(error)}`, {
          cause: error,
        });
      }),
    );
  return { conf: main, files, config };
}
