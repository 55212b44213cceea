import { NGINX_CONF_DIR } from './conf-dir.js';
import type { NginxDirective } from './types.js';

/**
 * Files every nginx package installs in its conf directory (nginx's own conf/ and Debian's
 * snippets/), with the directives each one sets: a config published without them still finds them
 * on the host that runs it, and what they can set is known.
 */
const STOCK_FILES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    'mime.types': ['types'],
    fastcgi_params: ['fastcgi_param'],
    'fastcgi.conf': ['fastcgi_param'],
    uwsgi_params: ['uwsgi_param'],
    scgi_params: ['scgi_param'],
    'koi-utf': ['charset_map'],
    'koi-win': ['charset_map'],
    'win-utf': ['charset_map'],
    'snippets/fastcgi-php.conf': ['fastcgi_split_path_info', 'try_files', 'set', 'fastcgi_index', 'include'],
    'snippets/snakeoil.conf': ['ssl_certificate', 'ssl_certificate_key'],
  }).map(([file, sets]) => [file, new Set(sets)]),
);

/**
 * The conf directory of another nginx layout, written as an absolute path: nginx's own
 * `/usr/local/nginx/conf/`, FreeBSD's and Homebrew's `…/etc/nginx/`, the Windows zip's
 * `E:/nginx/conf/` (or `C:\nginx-1.22.1\conf\`). Any absolute directory with a component named
 * nginx (or nginx-VERSION) counts, optionally followed by `conf`.
 */
const OTHER_CONF_DIR = /^(?:[A-Za-z]:)?[/\\](?:[^/\\]+[/\\])*?nginx(?:-[\d.]+)?[/\\](?:conf[/\\])?/i;

/**
 * The stock file an include names (`mime.types`, `/etc/nginx/fastcgi_params`,
 * `E:/nginx/conf/mime.types`), if it names one.
 */
function stockFile(include: NginxDirective): ReadonlySet<string> | undefined {
  const written = include.args[0] ?? '';
  if (written.startsWith(NGINX_CONF_DIR)) return STOCK_FILES.get(written.slice(NGINX_CONF_DIR.length));
  const other = OTHER_CONF_DIR.exec(written)?.[0];
  return STOCK_FILES.get(other ? written.slice(other.length).replaceAll('\\', '/') : written);
}

/** True for an include of a stock file. */
export function includesStockFile(include: NginxDirective): boolean {
  return stockFile(include) !== undefined;
}

/** True when the file `include` names could set `name`: any file but a stock one known not to. */
export function includeCouldSet(include: NginxDirective, name: string): boolean {
  return stockFile(include)?.has(name) ?? true;
}
