import { join } from 'node:path';

/**
 * nginx's compiled-in conf prefix in Debian's and nginx.org's packages: `include /etc/nginx/…`
 * names a file of the conf directory of the host the config was written for.
 */
export const NGINX_CONF_DIR = '/etc/nginx/';

/**
 * Where a path nginx would read sits in a copy of a host's conf directory (a repository of
 * /etc/nginx, linted from a checkout): a path under /etc/nginx/ is read under `confPrefix`, the
 * directory the copy stands for; any other path is left as written.
 */
export function pathInCopy(path: string, confPrefix: string): string {
  return path.startsWith(NGINX_CONF_DIR) ? join(confPrefix, path.slice(NGINX_CONF_DIR.length)) : path;
}
