import { passDirective } from '../../nginx-config/pass-directives.js';
import { contextsAllowing } from '../../nginx-config/check-directives.js';
import { parseProxyPassTarget } from '../../nginx-config/proxy-pass-target.js';
import { nearNames } from '../../nginx-config/unknown-directives.js';
import {
  childrenNamed,
  effectiveDirective,
  includesMissingFile,
  missingIncludeCouldSet,
  isMainConfig,
  listServers,
  listUpstreams,
  locationMatch,
  rootBlock,
  walkDirectives,
} from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';
import { sharedSockets } from './default-server.js';
import { socketKey } from './server-names.js';

/**
 * listen parameters that set options of the socket itself (nginx's `lsopt.set`): only one listen
 * of an address:port may carry them, since nginx binds the socket once.
 */
const SOCKET_OPTIONS =
  /^(?:bind|deferred|reuseport|setfib=|fastopen=|backlog=|rcvbuf=|sndbuf=|accept_filter=|ipv6only=|so_keepalive=)/;

/** nginx -t's "duplicate listen options for" and "a duplicate listen" (the same socket twice in a server). */
export const LISTEN_DUPLICATE: LintRule = {
  id: 'listen-duplicate',
  severity: 'error',
  title: 'listen options nginx refuses',
  message:
    'nginx binds each address:port once, so its socket options (ipv6only, reuseport, backlog, deferred, bind, ...) may be given by one listen only, and a server may name one address:port once: nginx -t fails with "duplicate listen options for" or "a duplicate listen", and a reload keeps the old config.',
  fix: 'give the socket options on one listen of that address:port (in one server), the other servers list it plainly (listen [::]:80;); drop the second listen of the same address:port in one server',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    const optionsAt = new Map<string, NginxDirective>();
    for (const { block } of listServers(config)) {
      const own = new Map<string, NginxDirective>();
      for (const listen of childrenNamed(block, 'listen')) {
        if ((listen.args[0] ?? '').includes('$')) continue;
        const key = socketKey(listen);
        const twice = own.get(key);
        if (twice)
          hits.push({
            file: listen.file,
            line: listen.line,
            directive: listen,
            what: `listen ${listen.args.join(' ')}: ${key} is already listed in this server at ${twice.file}:${twice.line} (nginx: a duplicate listen)`,
          });
        own.set(key, listen);
        if (!listen.args.slice(1).some((a) => SOCKET_OPTIONS.test(a))) continue;
        const first = optionsAt.get(key);
        if (first && first !== twice)
          hits.push({
            file: listen.file,
            line: listen.line,
            directive: listen,
            what: `listen ${listen.args.join(' ')}: socket options for ${key} were already given at ${first.file}:${first.line} (nginx: duplicate listen options)`,
          });
        else optionsAt.set(key, listen);
      }
    }
    return hits;
  },
};

/** nginx -t's "a duplicate default server for ADDRESS:PORT": one default per socket, in snippets too. */
export const DEFAULT_SERVER_DUPLICATE: LintRule = {
  id: 'default-server-duplicate',
  severity: 'error',
  title: 'two default_server on one listen address',
  message:
    'nginx sends the requests of an address:port that no server_name claims to its one default server: two servers marking the same address:port default_server make nginx -t fail with "a duplicate default server", and a reload keeps the old config. (0.0.0.0:80 and 80 are the same socket.)',
  fix: 'keep default_server on one listen of that address:port (usually a catch-all: server_name _; return 444;) and drop it from the others',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const [key, listeners] of sharedSockets(config)) {
      // A second default in the same server is listen-duplicate's ("a duplicate listen").
      const defaults = listeners.filter(
        (l, i) => l.isDefault && !listeners.slice(0, i).some((o) => o.isDefault && o.server === l.server),
      );
      const first = defaults[0];
      for (const extra of defaults.slice(1))
        hits.push({
          file: extra.at.file,
          line: extra.at.line,
          what: `listen ${extra.at.args.join(' ')}: a second default_server on ${key}, the first at ${first?.at.file ?? ''}:${first?.at.line ?? 0} (nginx: a duplicate default server)`,
        });
    }
    return hits;
  },
};

/** True when some include of the config names a file that was not found. */
function anyMissingInclude(config: NginxConfig): boolean {
  let missing = false;
  walkDirectives(config, (d) => {
    if (d.name === 'include' && d.missing) missing = true;
  });
  return missing;
}

/** The host part of a pass's address, when it is a plain name without port or variables. */
function bareName(pass: NginxDirective): string | undefined {
  const arg = pass.args[0] ?? '';
  if (arg.includes('$')) return undefined;
  const target = parseProxyPassTarget(/^[a-z]+:\/\//i.test(arg) ? arg : `x://${arg}`);
  if (!target || target.hasPort || target.host.startsWith('unix:') || target.host.startsWith('['))
    return undefined;
  return target.host;
}

/**
 * A pass to a name that no upstream group defines and that is not a host name: nginx -t refuses
 * it ("no port in upstream" for FastCGI/uwsgi/SCGI/gRPC/memcached, "host not found in upstream" for
 * proxy_pass).
 */
export const UPSTREAM_UNDEFINED: LintRule = {
  id: 'upstream-undefined',
  severity: 'error',
  title: 'pass to an upstream that is not defined',
  message:
    'A proxy_pass/fastcgi_pass name that no upstream {} block defines is taken for a host name: fastcgi_pass, uwsgi_pass, scgi_pass, grpc_pass and memcached_pass then need a port ("no port in upstream"), and proxy_pass resolves it at start ("host not found in upstream"). nginx -t fails and a reload keeps the old config: usually a typo, or the upstream block sits in a file that is not included.',
  fix: 'define the group (upstream php-handler { server unix:/run/php/php-fpm.sock; }) in an included file, or fix the name; a real host is written with its port (fastcgi_pass app:9000;)',
  runbook: null,
  test: (config) => {
    // In a snippet the group may be defined in the files that include it, and in any config in
    // an included file that was not found.
    if (!isMainConfig(config) || anyMissingInclude(config)) return [];
    const defined = listUpstreams(config);
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      const kind = passDirective(d.name);
      // stream's proxy_pass names stream upstreams, which listUpstreams (http's) does not hold.
      if (!kind || chain.some((block) => block.name === 'stream')) return;
      const name = bareName(d);
      if (name === undefined || defined.has(name)) return;
      // proxy_pass http://name resolves name:80: a dotted name or localhost may well be a host,
      // and so may a single word (a container name) in a config that defines no upstream groups.
      const looksLikeHost =
        name === 'localhost' || /^[\d.]+$/.test(name) || name.includes('.') || defined.size === 0;
      if (kind.defaultPort && looksLikeHost) return;
      // A single word beside groups is a typo of one (an error: `backnd` for `backend`), or a
      // container name nginx resolves at start (a compose service): only the host nginx runs on can
      // tell that, so a warning.
      const meant = nearNames(name, defined.keys());
      const maybeContainer = kind.defaultPort && !name.includes('.') && meant.length === 0;
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `${d.name} ${d.args[0] ?? ''}: no upstream ${name} is defined${meant.length > 0 ? ` (meant ${meant.join(' or ')}?)` : ''}${kind.defaultPort ? '' : ' and a host needs a port'}${maybeContainer ? ` (nginx -t fails unless ${name} resolves where nginx runs, as a container name does)` : ''}`,
        ...(maybeContainer ? { severity: 'warning' as const } : {}),
      });
    });
    return hits;
  },
};

/**
 * The default server of each TLS socket (`listen … ssl`/`quic`): the one marked default_server on
 * it, else the first in reading order, as nginx picks it.
 */
function defaultsOfTlsSockets(config: NginxConfig): Set<NginxDirective> {
  const bySocket = new Map<string, Array<{ server: NginxDirective; marked: boolean }>>();
  for (const { block } of listServers(config))
    for (const listen of childrenNamed(block, 'listen')) {
      if (!listen.args.slice(1).some((a) => a === 'ssl' || a === 'quic')) continue;
      const marked = listen.args.includes('default_server') || listen.args.includes('default');
      const key = socketKey(listen);
      bySocket.set(key, [...(bySocket.get(key) ?? []), { server: block, marked }]);
    }
  const defaults = new Set<NginxDirective>();
  for (const servers of bySocket.values()) {
    const chosen = servers.find((s) => s.marked) ?? servers[0];
    if (chosen) defaults.add(chosen.server);
  }
  return defaults;
}

/** nginx -t's 'no "ssl_certificate" is defined for the "listen ... ssl" directive'. */
export const SSL_CERTIFICATE_MISSING: LintRule = {
  id: 'ssl-certificate-missing',
  severity: 'error',
  title: 'listen … ssl without a certificate',
  message:
    "A server listening with ssl (or quic) needs ssl_certificate and ssl_certificate_key, in it or at http level. When it is the default server of its socket nginx -t fails; otherwise nginx starts and clients asking for its names get the default server's certificate, a name mismatch every browser refuses.",
  fix: 'ssl_certificate /etc/ssl/example.pem; ssl_certificate_key /etc/ssl/example.key; in the server (or ssl_reject_handshake on; for a catch-all server that should refuse TLS)',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    let defaults: Set<NginxDirective> | undefined;
    for (const { block, chain } of listServers(config)) {
      const tls = childrenNamed(block, 'listen').find((l) =>
        l.args.slice(1).some((a) => a === 'ssl' || a === 'quic'),
      );
      if (!tls || effectiveDirective(chain, 'ssl_certificate')) continue;
      if (effectiveDirective(chain, 'ssl_reject_handshake')?.args[0] === 'on') continue;
      // The certificate often sits in an include that was not found (in the server or around it):
      // that is include-missing's to say. A stock file such as mime.types holds none.
      if (missingIncludeCouldSet(chain, 'ssl_certificate')) continue;
      // A snippet's http level is in the nginx.conf that includes it, which may set the certificate
      // for every server (a vhost example linted alone): there the finding depends on that file.
      const whole = isMainConfig(config);
      // nginx -t asks a certificate of the default server of each TLS socket only. Another server
      // without one gets the default server's certificate: broken unless that one covers its names
      // (a wildcard), which only the certificate can tell.
      defaults ??= defaultsOfTlsSockets(config);
      const isDefault = whole && defaults.has(block);
      hits.push({
        file: tls.file,
        line: tls.line,
        directive: tls,
        what: !whole
          ? `listen ${tls.args.join(' ')} with no ssl_certificate in this file: unless the http level that includes it sets one, nginx -t refuses it`
          : isDefault
            ? `listen ${tls.args.join(' ')} with no ssl_certificate in this server or above it`
            : `listen ${tls.args.join(' ')} with no ssl_certificate in this server or above it: not the default server of its socket, so nginx starts and sends its names the default server's certificate`,
        ...(isDefault ? {} : { severity: 'warning' as const }),
      });
    }
    return hits;
  },
};

/**
 * The block a proxy_pass in it may not carry a URI part, as nginx -t names it ("proxy_pass cannot
 * have URI part in location given by regular expression, or inside named location, or inside "if"
 * statement, or inside "limit_except" block"): there nginx has no prefix to replace by it.
 */
function noUriBlock(block: NginxDirective): string | undefined {
  if (block.name === 'if') return 'inside `if`';
  if (block.name === 'limit_except') return 'inside `limit_except`';
  if (block.name !== 'location') return undefined;
  const { modifier, path } = locationMatch(block);
  if (modifier === '~' || modifier === '~*') return `in the regex location ${block.args.join(' ')}`;
  if (path.startsWith('@')) return `in the named location ${path}`;
  return undefined;
}

/** nginx -t's 'proxy_pass cannot have URI part in location given by regular expression, ...'. */
export const PROXY_PASS_URI_NOT_ALLOWED: LintRule = {
  id: 'proxy-pass-uri-not-allowed',
  severity: 'error',
  title: 'proxy_pass with a URI part where nginx refuses one',
  message:
    'A URI part in proxy_pass replaces the part of the path the prefix location matched. A regex location, a named location, an `if` and a `limit_except` block have no such prefix, so nginx -t fails ("proxy_pass cannot have URI part in location given by regular expression, or inside named location, or inside "if" statement, or inside "limit_except" block") and a reload keeps the old config.',
  fix: 'drop the URI part (proxy_pass http://app;), or build the path with variables (location ~ ^/api/(.*)$ { proxy_pass http://app/v1/$1$is_args$args; }), or move the proxy_pass out of the if / limit_except into a prefix location',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (pass, chain) => {
      if (pass.name !== 'proxy_pass') return;
      const target = parseProxyPassTarget(pass.args[0] ?? '');
      // With variables nginx builds the whole URL per request and checks nothing here.
      if (!target || target.hasVariables || target.uri === undefined) return;
      const block = chain[chain.length - 1];
      const where = block && noUriBlock(block);
      if (!where) return;
      hits.push({
        file: pass.file,
        line: pass.line,
        directive: pass,
        what: `proxy_pass ${pass.args[0] ?? ''} has the URI part ${target.uri} ${where} (nginx: proxy_pass cannot have URI part)`,
      });
    });
    return hits;
  },
};

/**
 * nginx -t's '"X" directive is not allowed here': a directive in a context its module does not
 * take it in (worker_connections outside events, if directly in http, set beside map). The reader
 * keeps it, marked, so the rest of the config is linted.
 */
export const DIRECTIVE_NOT_ALLOWED: LintRule = {
  id: 'directive-not-allowed',
  severity: 'error',
  title: 'directive in a context nginx refuses',
  message:
    'Each nginx directive may be written only in the contexts its module names (worker_connections in events, map in http, set in server, location or if). nginx -t fails with "directive is not allowed here" and a reload keeps the old config. The rest of the config was linted; what the refused directive would set was not applied anywhere. (The table is nginx 1.22\'s: a later nginx takes a few directives in more places, such as resolver inside upstream since 1.27.3.)',
  fix: 'move the directive into a context that takes it (worker_connections into events {}, an if into a server or location); when the file is a snippet included elsewhere, lint it with --context http|server|location',
  runbook: null,
  reportsRefused: true,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.notAllowedIn === undefined) return;
      const allowed = contextsAllowing(d.name);
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `"${d.name}" directive is not allowed here (in ${d.notAllowedIn}; nginx takes it in ${allowed.join(', ')})`,
      });
    });
    return hits;
  },
};

/** nginx -t's 'no "events" section in configuration'. */
export const EVENTS_MISSING: LintRule = {
  id: 'events-missing',
  severity: 'error',
  title: 'whole config without an events block',
  message:
    'nginx needs an events {} block in its main config, even an empty one: without it nginx -t fails with \'no "events" section in configuration\' and nginx does not start. (A file that is a snippet to include into http is linted with --context http, or sits in conf.d/ or sites-enabled/.)',
  fix: 'events {} (or events { worker_connections 1024; }) at the top of nginx.conf, next to http {}',
  runbook: null,
  test: (config) => {
    const root = rootBlock(config);
    // A stream-only nginx.conf is a whole config too (isMainConfig looks for http and events).
    const stream = childrenNamed(root, 'stream').find((d) => d.children);
    if (!isMainConfig(config) && !stream) return [];
    // An include that was not found may hold it: that is include-missing's to say.
    if (childrenNamed(root, 'events').length > 0 || includesMissingFile([root])) return [];
    const http = childrenNamed(root, 'http')[0] ?? stream;
    return [
      {
        file: http?.file ?? config.mainFile,
        line: http?.line ?? 1,
        what: `this config has ${http?.name ?? 'http'} {} but no events {}: nginx refuses to start (no "events" section)`,
      },
    ];
  },
};
