import {
  contextsAllowing,
  directivesAllowedIn,
  isNginxDirective,
  nginxDirectiveNames,
  scopeOf,
  topLevelContext,
  walkInContext,
  type NginxContext,
} from '../../nginx-config/check-directives.js';
import {
  definedElsewhere,
  familyOfModuleFile,
  isDirectiveElsewhere,
  namesElsewhere,
  nearNames,
  rewritePhaseFamily,
} from '../../nginx-config/unknown-directives.js';
import { ANNOTATION_PREFIX, type NginxConfig, type NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/** `a`, `a or b`, `a, b or c`. */
function oneOf(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** Where the lists take a name, in words: `njs in stream blocks`, `RTMP and http-flv (RTMP) in their own blocks`. */
function whereElsewhere(name: string): string {
  const byScope = new Map<string, string[]>();
  for (const { list, scope } of definedElsewhere(name))
    byScope.set(scope, [...new Set([...(byScope.get(scope) ?? []), list.family])]);
  return oneOf(
    [...byScope].map(([scope, families]) => {
      const who =
        families.length < 2 ? families[0] : `${families.slice(0, -1).join(', ')} and ${families.at(-1)}`;
      const where =
        scope === 'own'
          ? families.length < 2
            ? 'its own blocks'
            : 'their own blocks'
          : scope === 'main'
            ? 'the main context'
            : `${scope} blocks`;
      return `${who} in ${where}`;
    }),
  );
}

/** For a note: what a name no one defines may have meant, and where that name belongs. */
function hints(name: string): string {
  const near = nearNames(name, [...nginxDirectiveNames(), ...namesElsewhere()]);
  return oneOf(
    near.map((suggested) => {
      // `deny all` for deny_all: the directive is its first word.
      const other = suggested.split(' ')[0] as string;
      if (isNginxDirective(other))
        return `${suggested} (nginx takes it in ${contextsAllowing(other).join(', ')})`;
      const families = [...new Set(definedElsewhere(other).map((d) => d.list.family))];
      return `${suggested} (${families.join(', ')})`;
    }),
  );
}

/** A placeholder of a template engine (`@@RESOLVER@@`, `${SERVER_NAME}`, `{{ conf }}`) left in the file. */
const PLACEHOLDER = /^(?:@@\w+@@|\$\{?\w+\}?|\{\{.*|\{%.*|<%.*|%%\w+%%)$/;

/** The `load_module`s of modules lint has no list of: a name near an nginx directive may be theirs. */
function unknownModules(config: NginxConfig, top: NginxContext): NginxDirective[] {
  const found: NginxDirective[] = [];
  walkInContext(config.directives, top, (d, context) => {
    if (context === 'main' && d.name === 'load_module' && d.args[0] && !familyOfModuleFile(d.args[0]))
      found.push(d);
  });
  return found;
}

/**
 * nginx -t's 'unknown directive "X"': a name no module of nginx 1.22 (Debian's build with its
 * modules) defines, and no later nginx, fork, NGINX Plus or module lint knows either.
 */
export const DIRECTIVE_UNKNOWN: LintRule = {
  id: 'directive-unknown',
  severity: 'error',
  title: 'directive nginx does not know',
  message:
    "nginx refuses a config with a directive that none of its modules defines: nginx -t fails with 'unknown directive \"X\"' and a reload keeps the old config. A name one slip away from a directive nginx takes in that block (a letter added, dropped, changed or swapped, capitals or `-` for `_`, words left out: ssl_key for ssl_certificate_key, an argument glued on: deny_all) is a typo and an error (a warning when the config loads a module lint has no list of, which might define it). Any other unknown name is a note: nginx refuses it unless a module that defines it is loaded. The names of later nginx releases (http2, http3, quic_*, ...), nginx's forks (Tengine, Angie), NGINX Plus and App Protect, njs, nginx-acme, nginx-otel and the third-party modules lint knows (OpenResty's Lua modules and the rest of its bundle, headers-more, brotli, zstd, geoip2, VTS, ModSecurity, NAXSI, Passenger, RTMP, nchan, fancyindex, dav-ext, cache_purge, PageSpeed, auth_pam, auth_ldap, subs_filter, upstream check, sticky, upload progress, ...) are not reported where their module takes them; map, geo and types entries, Lua blocks and modules' own blocks are not read.",
  fix: "correct the name (ssl_certificate_key, proxy_set_header, client_max_body_size); for a module's directive, install the module and load it (load_module modules/ngx_http_..._module.so; at the top of nginx.conf)",
  runbook: null,
  test: (config) => {
    const top = config.context ?? topLevelContext(config.directives, config.mainFile);
    const unknown = unknownModules(config, top);
    const loaded = unknown.map((d) => `${d.args[0] ?? ''} (load_module at ${d.file}:${d.line})`).join(', ');
    const hits: RuleHit[] = [];
    walkInContext(config.directives, top, (d, context) => {
      const name = d.name;
      if (name.startsWith(ANNOTATION_PREFIX) || isNginxDirective(name)) return;
      const scope = scopeOf(context);
      const hit = { file: d.file, line: d.line, directive: d };
      const rewriting = context === 'http' ? rewritePhaseFamily(name) : undefined;
      if (rewriting) {
        hits.push({
          ...hit,
          severity: 'note',
          what: `"${name}" in http: a rewrite-phase statement of ${rewriting}, which runs only in a server, a location or an if in them: nginx -t refuses it as an unknown directive without ${rewriting}, and with it nginx takes it here but never runs it (like set, which nginx refuses at http level)`,
        });
        return;
      }
      if (isDirectiveElsewhere(name, scope)) return;
      const at = `unknown directive "${name}" in ${context}`;
      if (PLACEHOLDER.test(name)) {
        hits.push({
          ...hit,
          severity: 'note',
          what: `${at}: a template placeholder, not a directive: lint the config it renders to`,
        });
        return;
      }
      if (definedElsewhere(name).length > 0) {
        hits.push({
          ...hit,
          severity: 'note',
          what: `${at}: a directive of ${whereElsewhere(name)}, not here`,
        });
        return;
      }
      const meant = nearNames(name, directivesAllowedIn(context));
      if (meant.length > 0) {
        const typo = `${at}: meant ${oneOf(meant)}? nginx -t refuses it`;
        hits.push(
          unknown.length > 0
            ? { ...hit, severity: 'warning', what: `${typo} unless ${loaded} defines it` }
            : { ...hit, what: typo },
        );
        return;
      }
      const near = hints(name);
      hits.push({
        ...hit,
        severity: 'note',
        what: `${at}: no module lint knows defines it, so nginx -t refuses it unless one that does is loaded${near ? `; near: ${near}` : ''}${loaded ? `; loaded here: ${loaded}` : ''}`,
      });
    });
    return hits;
  },
};
