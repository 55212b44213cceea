import {
  childrenNamed,
  effectiveDirective,
  includesMissingFile,
  isMainConfig,
  listServers,
  walkDirectives,
  type BlockScope,
} from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { judgedVersion, type NginxIdentity } from '../../nginx-config/nginx-identity.js';
import { changeOf, predates } from '../../nginx-config/version-support.js';
import type { LintRule, RuleHit } from '../types.js';
import { citeChange } from './nginx-version.js';
import { listensMayBeUnread } from './default-server.js';
import { listenKey, socketKey } from './server-names.js';

/** Protocols with published practical attacks (POODLE, BEAST) and no AEAD ciphers. */
const WEAK_PROTOCOLS = new Set(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1']);

/**
 * The protocols beside which the weak ones are only a fallback: TLS 1.0 and 1.1 are deprecated (RFC
 * 8996), but a client that speaks 1.2 sees a downgrade (TLS 1.3's downgrade sentinel,
 * TLS_FALLBACK_SCSV), and OpenSSL 3 at its default security level (Debian 12's) refuses their
 * handshakes anyway; SSLv3 is not built into OpenSSL 1.1.0 and later. A warning, for compliance.
 */
const MODERN_PROTOCOLS = new Set(['TLSv1.2', 'TLSv1.3']);

/**
 * The TLS sockets whose default server sets no ssl_protocols. nginx answers the ClientHello with the
 * protocols of the socket's default server, before SNI picks the named one (nginx 1.22 with OpenSSL 3
 * accepts TLS 1.2 for a server saying `ssl_protocols TLSv1.3` when the default says nothing), and with
 * nothing set it offers TLSv1 and TLSv1.1 too until 1.27.3 turned them off by default (1.23.4 only
 * added TLSv1.3 to that default). Whole configs only: a snippet's http level is not in view.
 */
function unsetDefaultProtocols(config: NginxConfig, nginx: NginxIdentity): RuleHit[] {
  const change = changeOf('default', 'ssl_protocols');
  if (!isMainConfig(config) || !change || !predates(nginx, change)) return [];
  // A server whose listen lines may sit in an unread include may be any socket's default server.
  if (listServers(config).some(({ block }) => listensMayBeUnread(block))) return [];
  const sockets = new Map<string, Array<{ scope: BlockScope; listen: NginxDirective }>>();
  for (const scope of listServers(config))
    for (const listen of childrenNamed(scope.block, 'listen')) {
      if (!listen.args.includes('ssl')) continue;
      const key = socketKey(listen);
      sockets.set(key, [...(sockets.get(key) ?? []), { scope, listen }]);
    }
  const hits: RuleHit[] = [];
  for (const [key, listeners] of sockets) {
    const chosen =
      listeners.find(
        ({ listen }) => listen.args.includes('default_server') || listen.args.includes('default'),
      ) ?? (listeners[0] as { scope: BlockScope; listen: NginxDirective });
    if (effectiveDirective(chosen.scope.chain, 'ssl_protocols')) continue;
    hits.push({
      file: chosen.listen.file,
      line: chosen.listen.line,
      what: `the default server of TLS socket ${key} sets no ssl_protocols: its handshakes get nginx ${judgedVersion(nginx)}'s default, TLSv1 and TLSv1.1 included (off by default only from ${citeChange(change)}), whatever the other servers on it set`,
      severity: 'warning',
    });
  }
  return hits;
}

/** gixy-ng's weak_ssl_tls, protocols: ssl_protocols (and proxy_/grpc_ssl_protocols towards upstreams). */
export const TLS_PROTOCOLS_WEAK: LintRule = {
  id: 'tls-protocols-weak',
  severity: 'error',
  title: 'SSLv3, TLSv1 or TLSv1.1 enabled',
  message:
    "SSLv3, TLS 1.0 and 1.1 are deprecated (RFC 8996) and open to POODLE and BEAST-style downgrade attacks; every client of the last decade speaks TLS 1.2. Scanners and PCI DSS fail a server that still offers them. A socket's protocols are its default server's: nginx negotiates them before SNI selects a server, and without ssl_protocols nginx before 1.27.3 (Debian 12's 1.22 included) enables TLSv1 and TLSv1.1; 1.27.3 turned them off by default.",
  fix: 'ssl_protocols TLSv1.2 TLSv1.3; at http level (so every default server has it)',
  runbook: null,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (!/^(?:|proxy_|grpc_|uwsgi_)ssl_protocols$/.test(d.name)) return;
      const weak = d.args.filter((p) => WEAK_PROTOCOLS.has(p));
      if (weak.length > 0)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `${d.name} enables ${weak.join(', ')}`,
          // Only beside TLS 1.2/1.3: alone, no current client (nor OpenSSL 3's default level) can
          // connect. Beside them SSLv3 too: OpenSSL 1.1.0 and later build without it (Debian 12's
          // `openssl s_client` has no -ssl3), so whether it is offered depends on the OpenSSL nginx links.
          ...(d.args.some((p) => MODERN_PROTOCOLS.has(p)) ? { severity: 'warning' as const } : {}),
        });
    });
    return [...hits, ...unsetDefaultProtocols(config, nginx)];
  },
};

/**
 * The weak classes of OpenSSL's cipher-string language a token's words name (RC4, single DES, 3DES
 * as DES-CBC3, MD5, NULL, anonymous as aNULL/ADH/AECDH, EXPORT, LOW), as `ciphers(1)` groups them.
 */
function weakClasses(token: string): Set<string> {
  const words = token.toUpperCase().split(/[-+]/);
  const has = (...names: string[]) => names.some((n) => words.includes(n));
  const classes = new Set<string>();
  if (has('RC4')) classes.add('RC4');
  if (has('3DES', 'CBC3')) classes.add('3DES');
  else if (has('DES')) classes.add('DES');
  if (has('MD5')) classes.add('MD5');
  if (has('NULL', 'ENULL', 'ESNULL')) classes.add('ENULL');
  if (has('ANULL', 'ADH', 'AECDH')) classes.add('ANULL');
  if (has('EXP', 'EXPORT', 'EXPORT40', 'EXPORT56')) classes.add('EXPORT');
  if (has('LOW')) classes.add('LOW');
  return classes;
}

/** The weak classes an exclusion (`!X`, `-X`) takes out, by OpenSSL's aliases (`!LOW` takes single DES too). */
const EXCLUDES: Readonly<Record<string, readonly string[]>> = {
  RC4: ['RC4'],
  DES: ['DES'],
  '3DES': ['3DES'],
  MD5: ['MD5'],
  NULL: ['ENULL'],
  ENULL: ['ENULL'],
  ANULL: ['ANULL'],
  ADH: ['ANULL'],
  AECDH: ['ANULL'],
  EXP: ['EXPORT'],
  EXPORT: ['EXPORT'],
  EXPORT40: ['EXPORT'],
  EXPORT56: ['EXPORT'],
  LOW: ['LOW', 'DES'],
};

/**
 * The suites of a cipher string that stay enabled and name a weak algorithm. An exclusion
 * anywhere in the list counts (`!` deletes for good; `-` only what came before, but a weak suite
 * written after `-X` is rare): by class (`!3DES` takes out ECDHE-RSA-DES-CBC3-SHA, `!aNULL`
 * ADH-AES128-SHA, `!eNULL` NULL-SHA256), by MAC (`!SHA1` takes out every …-SHA suite) or by name.
 * What OpenSSL 3 still knows of these is checked against `openssl ciphers` in error-audit-live.test.ts.
 */
function weakCiphers(cipherString: string): string[] {
  const tokens = cipherString.split(/[:,\s]+/).filter(Boolean);
  const exclusions = tokens
    .filter((t) => t.startsWith('!') || t.startsWith('-'))
    .map((t) => t.slice(1).toUpperCase());
  const removed = new Set(exclusions.flatMap((x) => EXCLUDES[x] ?? []));
  const noSha1 = exclusions.includes('SHA1') || exclusions.includes('SHA');
  return tokens.filter((token) => {
    if (/^[!+@-]/.test(token)) return false;
    const name = token.toUpperCase();
    if (exclusions.includes(name) || (noSha1 && name.endsWith('-SHA'))) return false;
    return [...weakClasses(name)].some((c) => !removed.has(c));
  });
}

/** True when the cipher string enables suites besides the weak ones found in it (HIGH, ECDHE-…-GCM-…). */
function enablesOtherSuites(cipherString: string, weak: string[]): boolean {
  return cipherString
    .split(/[:,\s]+/)
    .filter(Boolean)
    .some((token) => !/^[!+@-]/.test(token) && !weak.includes(token));
}

/** gixy-ng's weak_ssl_tls, ciphers: RC4, DES/3DES, MD5, NULL, EXPORT and anonymous suites. */
export const TLS_CIPHERS_WEAK: LintRule = {
  id: 'tls-ciphers-weak',
  severity: 'error',
  title: 'weak TLS cipher suites enabled',
  message:
    'RC4 and MD5 are broken, DES and 3DES fall to SWEET32, EXPORT suites to FREAK/Logjam, NULL suites do not encrypt and anonymous (aNULL/ADH) ones do not authenticate the server: a client that offers one of them can be talked down to it. Whether nginx offers them depends on the OpenSSL it links (1.1.0 and later build without RC4, DES and EXPORT, OpenSSL 3 without 3DES; NULL and anonymous suites need @SECLEVEL=0); a list of weak suites only is refused by nginx -t on OpenSSL 3 ("no cipher match").',
  fix: "ssl_ciphers HIGH:!aNULL:!MD5; (nginx's default) or Mozilla's intermediate list",
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (!/^(?:|proxy_|grpc_|uwsgi_)ssl_ciphers$/.test(d.name)) return;
      const weak = weakCiphers(d.args.join(':'));
      if (weak.length > 0)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `${d.name} enables ${weak.join(', ')}`,
          // Beside other suites whether a weak one is offered at all depends on the OpenSSL nginx
          // links: 1.1.0 and later build without RC4, single DES and EXPORT, OpenSSL 3 without 3DES
          // too, and NULL and anonymous suites need @SECLEVEL=0. Alone they leave no suite a current
          // browser shares, or nginx -t refuses the list ("no cipher match", Debian 12's OpenSSL 3).
          ...(enablesOtherSuites(d.args.join(':'), weak) ? { severity: 'warning' as const } : {}),
        });
    });
    return hits;
  },
};

/** Ports clients reach over TLS by convention: a listen there under `ssl on` is the legacy HTTPS server. */
const TLS_PORTS = new Set(['443', '8443']);

/** Ports IANA registers for plain HTTP (http, http-alt): a listen there is meant for plain HTTP. */
const PLAIN_HTTP_PORTS = new Set(['80', '8080', '8000', '8008']);

/**
 * The first listen of a server (without `ssl`: `ssl on` makes every listen speak TLS) that is meant
 * for plain HTTP, with the reason: one on a plain-HTTP port (80, 8080, ...; a server with no listen
 * listens on *:80), or one beside a listen on a TLS port (443, 8443) of the same server, which then
 * serves two things, TLS there and plain HTTP here. A server whose listens are all on one port, or
 * all on TLS ports (`listen 443; ssl on;`, `listen 9443; ssl on;`), is the legacy HTTPS server.
 */
function plainHttpListen(server: NginxDirective): { why: string } | undefined {
  const listens = childrenNamed(server, 'listen').filter(
    (l) => !l.args.includes('ssl') && !(l.args[0] ?? '').startsWith('unix:'),
  );
  if (childrenNamed(server, 'listen').length === 0) {
    if (includesMissingFile([server])) return undefined; // its listen may sit in the unread file
    return { why: 'this server has no listen, so it listens on *:80' };
  }
  const port = (l: NginxDirective) => listenKey(l).split(':').at(-1) ?? '80';
  const at = (l: NginxDirective) => `listen ${l.args.join(' ')} (${l.file}:${l.line})`;
  const onPlainPort = listens.find((l) => PLAIN_HTTP_PORTS.has(port(l)));
  if (onPlainPort) return { why: `${at(onPlainPort)} is on a plain-HTTP port` };
  const tlsPorts = childrenNamed(server, 'listen').filter((l) => TLS_PORTS.has(port(l)));
  const beside = listens.find((l) => !TLS_PORTS.has(port(l)));
  if (beside && tlsPorts.length > 0)
    return { why: `${at(beside)} sits beside listen ${tlsPorts[0]?.args.join(' ') ?? ''}, for plain HTTP` };
  return undefined;
}

/** The `ssl on|off;` directive: deprecated in nginx 1.15.0, removed in 1.25.1. */
export const SSL_DIRECTIVE_OBSOLETE: LintRule = {
  id: 'ssl-directive-obsolete',
  severity: 'warning',
  title: 'the ssl directive (removed in nginx 1.25.1)',
  message:
    'nginx 1.15.0 deprecated `ssl on;` (it warns at every start) and 1.25.1 removed it: from then on nginx -t fails with "unknown directive ssl" and nginx does not start (an error on such an nginx, a warning before). It also turns TLS on for every listen of the server, so a listen meant for plain HTTP (on port 80, 8080, 8000 or 8008, or on another port beside one on 443 or 8443) answers plain HTTP with 400: an error on any version. A server listening on TLS ports only (`listen 443; ssl on;`) is the legacy HTTPS server: a warning until 1.25.1.',
  fix: 'drop ssl on; and write ssl on the listen instead: listen 443 ssl;',
  runbook: null,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    const removed = changeOf('removed', 'ssl');
    const refused = removed !== undefined && !predates(nginx, removed);
    walkDirectives(config, (d, chain) => {
      if (d.name !== 'ssl' || d.children) return;
      const server = chain.at(-1)?.name === 'server' ? chain.at(-1) : undefined;
      const plain = server ? plainHttpListen(server) : undefined;
      const at = { file: d.file, line: d.line, directive: d };
      if (refused)
        hits.push({
          ...at,
          severity: 'error',
          what: `ssl ${d.args.join(' ')}: nginx ${judgedVersion(nginx)} refuses this directive (unknown directive "ssl"), removed in ${citeChange(removed)}`,
        });
      else if (d.args[0] === 'on' && plain)
        hits.push({
          ...at,
          severity: 'error',
          what: `ssl on: ${plain.why}, but ssl on makes it speak TLS too, so plain HTTP to it fails (400); nginx ${judgedVersion(nginx)} still takes the directive (removed in 1.25.1)`,
        });
      else
        hits.push({
          ...at,
          what: `ssl ${d.args.join(' ')}: deprecated on nginx ${judgedVersion(nginx)}, refused from 1.25.1 on (use listen … ssl)`,
        });
    });
    return hits;
  },
};

/** gixy-next's ssl_stapling_without_resolver. */
export const SSL_STAPLING_WITHOUT_RESOLVER: LintRule = {
  id: 'ssl-stapling-without-resolver',
  severity: 'note',
  title: 'ssl_stapling on without a resolver',
  message:
    'nginx resolves the CA\'s OCSP responder once, when it loads the config; with `resolver` it resolves it again at each refresh. Without one it keeps the start-up addresses (logging "no resolver defined to resolve" at every refresh): when the CA moves its responder, stapling stops until the next reload, and clients that check revocation ask the CA themselves.',
  fix: 'resolver 127.0.0.53 valid=300s; (or the local/VPC resolver) beside ssl_stapling on; or give the response with ssl_stapling_file',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      if (d.name !== 'ssl_stapling' || d.args[0] !== 'on') return;
      const scope = [...chain];
      if (effectiveDirective(scope, 'resolver') || effectiveDirective(scope, 'ssl_stapling_file')) return;
      if (includesMissingFile(scope)) return; // that include may set it: include-missing says so
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: isMainConfig(config)
          ? 'ssl_stapling on with no resolver in effect: the OCSP responder keeps the address it had at start'
          : 'ssl_stapling on with no resolver in this file: unless the http level that includes it sets one, the OCSP responder keeps the address it had at start',
      });
    });
    return hits;
  },
};
