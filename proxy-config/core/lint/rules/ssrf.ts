import { passDirective } from '../../nginx-config/pass-directives.js';
import { isMainConfig, resolverInEffect, walkDirectives } from '../../nginx-config/query.js';
import type { NginxConfig } from '../../nginx-config/types.js';
import { isInternalLocation } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';
import { setsOf, sourcesIn, type ValueSite, type VariableSource } from '../variable-sources.js';

/** The scheme and host parts of a `*_pass` target (`$1://$2/rest` → `$1://`, `$2`). */
const TARGET = /^([^?#/)]+:\/\/)?([^?#/)]+)/;

/** A source that lets the client name any host: it is theirs and can hold a dot. */
const namesAHost = (source: VariableSource) => source.client && source.mayHold('.');

/**
 * A target that starts with a variable (`proxy_pass $upstream;`) is read through the `set`s that
 * give it a value, so `set $upstream http://app$request_uri;` counts as written there.
 */
function expandedTargets(target: string, site: ValueSite, depth: number): Array<[string, ValueSite]> {
  const head = /^\$(?:\{(\w+)\}|(\w+))/.exec(target);
  const sets = head && depth < 4 ? setsOf((head[1] ?? head[2]) as string, site) : [];
  if (!head || sets.length === 0) return [[target, site]];
  const rest = target.slice(head[0].length);
  return sets.flatMap((set) => expandedTargets(`${set.directive.args[1] ?? ''}${rest}`, set, depth + 1));
}

/** The first client-chosen source in the scheme or host part of a target. */
function hostSource(target: string, site: ValueSite, config: NginxConfig): VariableSource | undefined {
  const parts = TARGET.exec(target);
  if (!parts) return undefined;
  // $request_uri, $uri and $document_uri start with "/": the host ends where they begin.
  const host = (parts[2] ?? '').replace(/\$\{?(request_uri|uri|document_uri)\b.*$/, '');
  for (const part of [parts[1], host]) {
    const source = part === undefined ? undefined : sourcesIn(part, site, config).find(namesAHost);
    if (source) return source;
  }
  return undefined;
}

/**
 * A host part with a fixed prefix before the client's value (`http://backend-$behost/`, Netdata's
 * sample) is never an IP literal: without a resolver nginx can only match it against upstream
 * groups (anything else is a 502), so the client picks among the config's own groups. With a
 * resolver, `backend-x.evil.example` is the client's own host again.
 */
function fixedPrefixHost(target: string): boolean {
  const host = TARGET.exec(target)?.[2] ?? '';
  const prefix = host.slice(0, host.indexOf('$'));
  return prefix !== '' && !prefix.startsWith('[') && /[^0-9.]/.test(prefix);
}

/** gixy's ssrf: a client-chosen host in proxy_pass turns nginx into an open proxy into the network. */
export const PROXY_PASS_SSRF: LintRule = {
  id: 'proxy-pass-ssrf',
  severity: 'error',
  title: 'proxy_pass host chosen by the client',
  message:
    'When the scheme or host of proxy_pass (fastcgi/uwsgi/scgi/grpc_pass) comes from the request (a query argument, a header, $host, a capture of the path), anyone can make nginx fetch any address it can reach: cloud metadata (169.254.169.254), admin ports, internal services (server-side request forgery).',
  fix: 'name the upstream in the config; to pick one by request, map the request value to a fixed list of upstream names (map $arg_region $backend { default app_eu; us app_us; }) with no client value as a map result',
  runbook: RUNBOOKS.requestForgery,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      const location = chain.findLast((block) => block.name === 'location');
      if (!passDirective(d.name)?.variables || (location && isInternalLocation(location))) return;
      for (const [target, site] of expandedTargets(d.args[0] ?? '', { directive: d, chain }, 0)) {
        const source = hostSource(target, site, config);
        if (!source) continue;
        if (fixedPrefixHost(target) && !resolverInEffect(config, chain)) {
          // In a whole config no resolver means none; a snippet's http level may still set one.
          if (isMainConfig(config)) continue;
          hits.push({
            file: d.file,
            line: d.line,
            directive: d,
            severity: 'warning',
            what: `${d.name} ${d.args[0] ?? ''}: ${source.what} names the host after a fixed prefix; with no resolver in this file only upstream groups match, but a resolver at the http level that includes it would let the client name its own host`,
          });
          return;
        }
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `${d.name} ${d.args[0] ?? ''}: ${source.what} names the host`,
        });
        return;
      }
    });
    return hits;
  },
};
