import { passDirective } from '../../nginx-config/pass-directives.js';
import { isMainConfig, resolverInEffect, walkDirectives } from '../../nginx-config/query.js';
import type { NginxConfig } from '../../nginx-config/types.js';
import { isInternalLocation } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';
import { setsOf, sourcesIn, type ValueSite, type VariableSource } from '../variable-sources.js';

/** Where the scheme and host of a `*_pass` target end: at the first `/`, `?` or `#` after `scheme://`. */
const TARGET = /^([^?#/)]+:\/\/)?([^?#/)]+)/;

/** A variable as nginx writes it in a value: `$name` or `${name}`. */
const VARIABLE = /\$(?:\{(\w+)\}|(\w+))/g;

/** `set`s followed into one target; past them, sourcesIn reads the whole value as host (never quieter). */
const MAX_EXPANSIONS = 4;

/** A source that lets the client name any host: it is theirs and can hold a dot. */
const namesAHost = (source: VariableSource) => source.client && source.mayHold('.');

/**
 * Part of a target as nginx builds it: text written at a site, whose variables (captures above
 * all) take their values there. A `set` value keeps the site of its `set`.
 */
interface Piece {
  text: string;
  site: ValueSite;
}

/** The target's text, as written once its variables are replaced. */
const textOf = (pieces: Piece[]) => pieces.map((piece) => piece.text).join('');

/**
 * The length of the scheme and host in a target's text. `$request_uri`, `$uri` and `$document_uri`
 * start with "/": the host ends where they begin.
 */
function hostEnd(text: string): number {
  const host = TARGET.exec(text)?.[0] ?? '';
  return /\$\{?(?:request_uri|uri|document_uri)\b/.exec(host)?.index ?? host.length;
}

/**
 * The targets a `*_pass` argument can become once the `set` variables in its scheme and host are
 * replaced by what each `set` writes, one target per combination of `set`s. nginx splits the whole
 * value at its first "/", so `set $u backend:9000/hooks/$1; proxy_pass http://$u;` sends $1 in the
 * path, and a variable after that "/" is never host.
 */
function expandedTargets(pieces: Piece[], depth: number): Piece[][] {
  const end = hostEnd(textOf(pieces));
  let offset = 0;
  for (const [i, piece] of pieces.entries()) {
    for (const variable of piece.text.matchAll(VARIABLE)) {
      if (offset + variable.index >= end) return [pieces];
      const sets = depth < MAX_EXPANSIONS ? setsOf((variable[1] ?? variable[2]) as string, piece.site) : [];
      if (sets.length === 0) continue;
      const before = { text: piece.text.slice(0, variable.index), site: piece.site };
      const after = { text: piece.text.slice(variable.index + variable[0].length), site: piece.site };
      return sets.flatMap((set) =>
        expandedTargets(
          [
            ...pieces.slice(0, i),
            before,
            { text: set.directive.args[1] ?? '', site: set },
            after,
            ...pieces.slice(i + 1),
          ],
          depth + 1,
        ),
      );
    }
    offset += piece.text.length;
  }
  return [pieces];
}

/** The first client-chosen source in the scheme or host part of a target. */
function hostSource(pieces: Piece[], config: NginxConfig): VariableSource | undefined {
  let left = hostEnd(textOf(pieces));
  for (const piece of pieces) {
    if (left <= 0) return undefined;
    const source = sourcesIn(piece.text.slice(0, left), piece.site, config).find(namesAHost);
    if (source) return source;
    left -= piece.text.length;
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
      for (const pieces of expandedTargets([{ text: d.args[0] ?? '', site: { directive: d, chain } }], 0)) {
        const source = hostSource(pieces, config);
        if (!source) continue;
        if (fixedPrefixHost(textOf(pieces)) && !resolverInEffect(config, chain)) {
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
