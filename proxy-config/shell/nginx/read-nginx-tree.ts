import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
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

/**
 * The pid file of the master running an adopted tree: the spec's `nginx.pidFile`, else the tree's
 * own `pid` directive, else Debian's /run/nginx.pid. A relative `pid` resolves against a prefix only
 * the running master knows: the spec must name it then.
 */
export function pidFileOfTree(nginx: { pidFile?: string }, config: NginxConfig): string {
  if (nginx.pidFile) return nginx.pidFile;
  const pid = config.directives.find((d) => d.name === 'pid')?.args[0];
  if (pid === undefined) return '/run/nginx.pid';
  if (isAbsolute(pid)) return pid;
  throw new ProxyopsError(
    'BAD_OPTION',
    `${config.mainFile} writes its pid to the relative path ${pid}: give the spec nginx.pidFile with the absolute path`,
  );
}
