import { ACCESS_LOG_BUFFER_NO_FLUSH, ACCESS_LOG_UPSTREAM_FIELDS } from './rules/access-log.js';
import {
  ALLOW_WITHOUT_DENY,
  RETURN_BYPASSES_ALLOW_DENY,
  STATUS_PAGE_EXPOSED,
} from './rules/access-control.js';
import { BODY_SIZE_INCONSISTENT } from './rules/body-size.js';
import { CACHE_CONTROL_INVERTED } from './rules/cache-control.js';
import { FORWARDED_PROTO_MISSING, REQUEST_ID_MISSING } from './rules/forwarded-headers.js';
import { ADD_HEADER_DROPPED, PROXY_HEADER_DROPPED } from './rules/header-inheritance.js';
import { ADD_HEADER_CONTENT_TYPE, ADD_HEADER_MULTILINE } from './rules/response-headers.js';
import { IF_IN_LOCATION } from './rules/if-in-location.js';
import { TRY_FILES_WITHOUT_OPEN_FILE_CACHE } from './rules/open-file-cache.js';
import { PROXY_PASS_NORMALIZED } from './rules/proxy-pass-normalized.js';
import { PROXY_PASS_SLASH_MISMATCH } from './rules/proxy-pass-slash.js';
import { ORIGIN_REGEX_UNSAFE, VALID_REFERERS_NONE } from './rules/origin-regex.js';
import { PROXY_PASS_SSRF } from './rules/ssrf.js';
import { SERVER_NAME_CONFLICT } from './rules/server-names.js';
import { ALIAS_TRAVERSAL, HOST_HEADER_SPOOFABLE, HTTP_SPLITTING } from './rules/security.js';
import { TIMEOUT_NOT_NESTED } from './rules/timeouts.js';
import {
  KEEPALIVE_TIMEOUT_ORDER,
  UPSTREAM_KEEPALIVE_HEADERS,
  UPSTREAM_KEEPALIVE_MISSING,
} from './rules/upstream-keepalive.js';
import { SERVER_TOKENS_ON, WORKER_RLIMIT_NOFILE_LOW } from './rules/workers.js';
import { DEFAULT_SERVER_MISSING } from './rules/default-server.js';
import { RESOLVER_EXTERNAL, UPSTREAM_DNS_STALE } from './rules/dns.js';
import { ERROR_LOG_OFF, WORKER_PROCESSES_MISSING } from './rules/main-context.js';
import { MAP_WITHOUT_DEFAULT } from './rules/maps.js';
import { REGEX_INVALID, REGEX_REDOS, REGEX_UNANCHORED } from './rules/regexes.js';
import { KEEPALIVE_REQUESTS_LOW, MERGE_SLASHES_OFF, PROXY_BUFFERING_OFF } from './rules/request-handling.js';
import { TLS_CIPHERS_WEAK, TLS_PROTOCOLS_WEAK } from './rules/tls.js';
import { INCLUDE_MISSING } from './rules/includes.js';
import {
  DEFAULT_SERVER_DUPLICATE,
  DIRECTIVE_NOT_ALLOWED,
  LISTEN_DUPLICATE,
  PROXY_PASS_URI_NOT_ALLOWED,
  SSL_CERTIFICATE_MISSING,
  UPSTREAM_UNDEFINED,
} from './rules/nginx-refusals.js';
import type { LintRule } from './types.js';

/** Every lint rule `config lint` runs, in report order. Ids are stable (pinned by a test). */
export const LINT_RULES: readonly LintRule[] = [
  FORWARDED_PROTO_MISSING,
  REQUEST_ID_MISSING,
  UPSTREAM_KEEPALIVE_MISSING,
  UPSTREAM_KEEPALIVE_HEADERS,
  KEEPALIVE_TIMEOUT_ORDER,
  PROXY_PASS_SLASH_MISMATCH,
  PROXY_PASS_NORMALIZED,
  CACHE_CONTROL_INVERTED,
  TIMEOUT_NOT_NESTED,
  BODY_SIZE_INCONSISTENT,
  ACCESS_LOG_UPSTREAM_FIELDS,
  ACCESS_LOG_BUFFER_NO_FLUSH,
  WORKER_RLIMIT_NOFILE_LOW,
  SERVER_TOKENS_ON,
  ADD_HEADER_DROPPED,
  PROXY_HEADER_DROPPED,
  ALIAS_TRAVERSAL,
  HOST_HEADER_SPOOFABLE,
  HTTP_SPLITTING,
  SERVER_NAME_CONFLICT,
  ADD_HEADER_MULTILINE,
  ADD_HEADER_CONTENT_TYPE,
  ALLOW_WITHOUT_DENY,
  RETURN_BYPASSES_ALLOW_DENY,
  STATUS_PAGE_EXPOSED,
  IF_IN_LOCATION,
  TRY_FILES_WITHOUT_OPEN_FILE_CACHE,
  PROXY_PASS_SSRF,
  ORIGIN_REGEX_UNSAFE,
  VALID_REFERERS_NONE,
  REGEX_INVALID,
  REGEX_UNANCHORED,
  REGEX_REDOS,
  RESOLVER_EXTERNAL,
  UPSTREAM_DNS_STALE,
  MERGE_SLASHES_OFF,
  PROXY_BUFFERING_OFF,
  MAP_WITHOUT_DEFAULT,
  ERROR_LOG_OFF,
  WORKER_PROCESSES_MISSING,
  KEEPALIVE_REQUESTS_LOW,
  DEFAULT_SERVER_MISSING,
  TLS_PROTOCOLS_WEAK,
  TLS_CIPHERS_WEAK,
  INCLUDE_MISSING,
  LISTEN_DUPLICATE,
  UPSTREAM_UNDEFINED,
  SSL_CERTIFICATE_MISSING,
  PROXY_PASS_URI_NOT_ALLOWED,
  DIRECTIVE_NOT_ALLOWED,
  DEFAULT_SERVER_DUPLICATE,
];
