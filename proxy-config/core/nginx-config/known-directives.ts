/** Blocks whose body is data (`key value;` entries) rather than directives. */
export const ENTRY_BLOCKS: ReadonlySet<string> = new Set([
  'map',
  'types',
  'geo',
  'split_clients',
  'charset_map',
  'match',
]);

/** True for OpenResty's `*_by_lua_block { ... }`, whose body is Lua source, not nginx syntax. */
export function isRawBlock(name: string): boolean {
  return name.endsWith('_by_lua_block');
}

/**
 * Directive names that practically never appear as an argument of another directive. One of them
 * starting a new line in the middle of a statement means the previous line lost its `;`.
 */
export const LINE_LEADING_DIRECTIVES: ReadonlySet<string> = new Set([
  'access_log',
  'add_header',
  'alias',
  'client_max_body_size',
  'error_log',
  'error_page',
  'expires',
  'include',
  'index',
  'keepalive',
  'keepalive_timeout',
  'listen',
  'location',
  'log_format',
  'proxy_buffering',
  'proxy_connect_timeout',
  'proxy_http_version',
  'proxy_pass',
  'proxy_read_timeout',
  'proxy_send_timeout',
  'proxy_set_header',
  'return',
  'rewrite',
  'root',
  'server_name',
  'server_tokens',
  'try_files',
  'upstream',
]);
