import {
  scopeOf,
  topLevelContext,
  walkInContext,
  type NginxContext,
} from '../../nginx-config/check-directives.js';
import { effectiveValue, listLocations, listServers, walkDirectives } from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { listProxiedLocations } from '../proxied-locations.js';

/** Where a config shows an advisory's pattern: the directive to report at. undefined: it does not. */
export type AdvisoryPattern = (config: NginxConfig) => NginxDirective | undefined;

/** The first directive, in reading order, with its context, that `match` accepts. */
function first(config: NginxConfig, match: (d: NginxDirective, context: NginxContext) => boolean) {
  let found: NginxDirective | undefined;
  const top = config.context ?? topLevelContext(config.directives, config.mainFile);
  walkInContext(config.directives, top, (d, context) => {
    if (!found && match(d, context)) found = d;
  });
  return found;
}

const named =
  (names: readonly string[], scope?: 'http' | 'mail' | 'stream', when?: (d: NginxDirective) => boolean) =>
  (config: NginxConfig) =>
    first(
      config,
      (d, context) => names.includes(d.name) && (!scope || scopeOf(context) === scope) && (!when || when(d)),
    );

const UNNAMED_CAPTURE = /\$(?:[1-9]|\{[1-9]\})/;

/** Capturing groups, skipping escapes, classes and `(?:`/lookarounds; `(?<name>`, `(?P<name>` capture. */
function captureDepths(regex: string): number[] {
  const depths: number[] = [];
  const open: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < regex.length; i++) {
    const c = regex[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') {
      const rest = regex.slice(i + 1);
      const captures = !rest.startsWith('?') || /^\?P?<[A-Za-z_]/.test(rest) || rest.startsWith("?'");
      if (captures) depths.push(open.filter(Boolean).length);
      open.push(captures);
    } else if (c === ')') open.pop();
  }
  return depths;
}

/** A regex with a capturing group inside another: captures that overlap. */
export function hasOverlappingCaptures(regex: string): boolean {
  return captureDepths(regex).some((depth) => depth > 0);
}

/** The regex of a `rewrite`, or of an `if` matching with `~`/`~*`/`!~`. */
function rewriteModuleRegex(d: NginxDirective): string | undefined {
  if (d.name === 'rewrite') return d.args[0];
  if (d.name === 'if' && /^!?~\*?$/.test(d.args[1] ?? '')) return d.args[2];
  return undefined;
}

/**
 * CVE-2026-42945: a `rewrite` whose replacement uses unnamed captures ($1) and holds a `?`,
 * followed in its block by another `rewrite`, an `if` or a `set`.
 */
const rewriteCapturesWithQuery: AdvisoryPattern = (config) => {
  let found: NginxDirective | undefined;
  const visit = (body: readonly NginxDirective[]) =>
    body.forEach((d, i) => {
      if (d.children) visit(d.children);
      const replacement = d.args[1] ?? '';
      if (
        !found &&
        d.name === 'rewrite' &&
        UNNAMED_CAPTURE.test(replacement) &&
        replacement.includes('?') &&
        body.slice(i + 1).some((next) => ['rewrite', 'if', 'set'].includes(next.name))
      )
        found = d;
    });
  visit(config.directives);
  return found;
};

/**
 * CVE-2026-42533: a `map` with regex entries whose variable comes after an unnamed capture ($1) in a
 * string expression: evaluating the map runs its regex, which changes the captures being copied.
 */
const mapRegexInExpression: AdvisoryPattern = (config) => {
  const maps = new Map<string, NginxDirective>();
  walkDirectives(config, (d) => {
    const variable = d.args[1];
    if (d.name === 'map' && variable && (d.entries ?? []).some((e) => e.name.startsWith('~')))
      maps.set(variable.replace(/^\$\{?|\}$/g, ''), d);
  });
  let found: NginxDirective | undefined;
  walkDirectives(config, (d) => {
    for (const [name, map] of maps)
      if (!found && d.args.some((arg) => new RegExp(`\\$\\{?[1-9]\\}?.*\\$\\{?${name}(?!\\w)`).test(arg)))
        found = map;
  });
  return found;
};

/** CVE-2026-60005: `slice` or a background cache update, with unnamed captures used. */
const sliceWithCaptures: AdvisoryPattern = (config) => {
  const slice = first(
    config,
    (d) => d.name === 'slice' || (/_cache_background_update$/.test(d.name) && d.args[0] === 'on'),
  );
  return slice && first(config, (d) => d.args.some((a) => UNNAMED_CAPTURE.test(a))) ? slice : undefined;
};

/** CVE-2026-56434: SSI on in a location that proxies. */
const ssiOnProxied: AdvisoryPattern = (config) =>
  listProxiedLocations(config).find(({ chain }) => effectiveValue(chain, 'ssi', 'off') === 'on')?.proxyPass;

/** CVE-2026-42055: `ignore_invalid_headers off` and a gRPC or HTTP/2 backend. */
const invalidHeadersToHttp2: AdvisoryPattern = (config) => {
  const off = named(['ignore_invalid_headers'], 'http', (d) => d.args[0] === 'off')(config);
  const h2 =
    named(['grpc_pass'])(config) ?? named(['proxy_http_version'], 'http', (d) => d.args[0] === '2')(config);
  return off && h2 ? off : undefined;
};

/** CVE-2026-48142, CVE-2026-42934: a `charset_map` from or to UTF-8 and a `charset` recoding with it. */
const charsetFromUtf8: AdvisoryPattern = (config) => {
  const utf8 = (name: string) => /^utf-?8$/i.test(name);
  const maps = new Map<string, NginxDirective>();
  walkDirectives(config, (d) => {
    const [a = '', b = ''] = d.args;
    if (d.name === 'charset_map' && (utf8(a) || utf8(b))) maps.set((utf8(a) ? b : a).toLowerCase(), d);
  });
  return named(['charset'], 'http', (d) => maps.has((d.args[0] ?? '').toLowerCase()))(config) &&
    named(['source_charset'], 'http', (d) => utf8(d.args[0] ?? ''))(config)
    ? [...maps.values()][0]
    : undefined;
};

/** CVE-2026-9256: a regex of the rewrite module with a capture inside another. */
const overlappingCaptures: AdvisoryPattern = (config) =>
  first(config, (d) => {
    const regex = rewriteModuleRegex(d);
    return regex !== undefined && hasOverlappingCaptures(regex);
  });

/** CVE-2026-42926: `proxy_set_body` in a location that proxies over HTTP/2. */
const setBodyToHttp2: AdvisoryPattern = (config) =>
  listProxiedLocations(config).find(
    ({ chain }) =>
      effectiveValue(chain, 'proxy_set_body') !== undefined &&
      effectiveValue(chain, 'proxy_http_version') === '2',
  )?.proxyPass;

/** CVE-2026-27654: WebDAV COPY or MOVE in a location with `alias`. */
const davCopyWithAlias: AdvisoryPattern = (config) =>
  listLocations(config).find(
    ({ block, chain }) =>
      /\b(?:COPY|MOVE)\b/.test(
        (block.children ?? []).find((d) => d.name === 'dav_methods')?.args.join(' ') ?? '',
      ) && effectiveValue(chain, 'alias') !== undefined,
  )?.block;

/** CVE-2025-23419: client certificates checked in one TLS server while another TLS server does not. */
const clientCertsBesideOtherServers: AdvisoryPattern = (config) => {
  const tls = listServers(config).filter(({ block }) =>
    (block.children ?? []).some(
      (d) => (d.name === 'listen' && d.args.includes('ssl')) || d.name === 'ssl_certificate',
    ),
  );
  const verifying = tls.filter(
    ({ chain }) => (effectiveValue(chain, 'ssl_verify_client', 'off') ?? 'off') !== 'off',
  );
  return verifying.length > 0 && verifying.length < tls.length ? verifying[0]?.block : undefined;
};

const quic = named(['listen'], 'http', (d) => d.args.includes('quic'));
const mp4 = named(['mp4'], 'http');
const mailAuth = (methods: RegExp) =>
  named(['smtp_auth', 'pop3_auth', 'imap_auth'], 'mail', (d) => d.args.some((a) => methods.test(a)));

/** Each pattern by the name the advisory table gives it. */
export const ADVISORY_PATTERNS = {
  mapRegexInExpression,
  sliceWithCaptures,
  ssiOnProxied,
  http3: quic,
  invalidHeadersToHttp2,
  charsetFromUtf8,
  overlappingCaptures,
  setBodyToHttp2,
  rewriteCapturesWithQuery,
  scgiOrUwsgi: named(['scgi_pass', 'uwsgi_pass'], 'http'),
  sslOcsp: named(['ssl_ocsp'], 'http', (d) => d.args[0] !== 'off'),
  davCopyWithAlias,
  mp4,
  mailCramMd5OrApop: mailAuth(/^(?:cram-md5|apop)$/i),
  mailResolver: named(['resolver'], 'mail', (d) => d.args[0] !== 'off'),
  streamSslOcsp: named(['ssl_ocsp'], 'stream', (d) => d.args[0] !== 'off'),
  sslUpstream: named(['proxy_pass', 'grpc_pass', 'uwsgi_pass'], 'http', (d) =>
    /^(?:https|grpcs|suwsgi):\/\//.test(d.args[0] ?? ''),
  ),
  smtpAuthNone: named(['smtp_auth'], 'mail', (d) => d.args.includes('none')),
  clientCertsBesideOtherServers,
  resolver: named(['resolver'], undefined, (d) => d.args[0] !== 'off'),
} satisfies Record<string, AdvisoryPattern>;

export type AdvisoryPatternName = keyof typeof ADVISORY_PATTERNS;
