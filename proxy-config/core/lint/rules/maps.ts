import { walkDirectives } from '../../nginx-config/query.js';
import { ANNOTATION_PREFIX } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/** Entries of a map or geo body that are settings, not key → value pairs. */
const SETTINGS = new Set([
  'default',
  'hostnames',
  'volatile',
  'include',
  'ranges',
  'delete',
  'proxy',
  'proxy_recursive',
]);

/** Variables set by the response: nginx's own headers and trailers, and the upstream's. */
const RESPONSE_VARIABLE = /^\$(?:sent_http_|sent_trailer_|upstream_http_|upstream_trailer_)/;

/** gixy's hash_without_default. */
export const MAP_WITHOUT_DEFAULT: LintRule = {
  id: 'map-without-default',
  severity: 'warning',
  title: 'map or geo without a default',
  message:
    'A value no entry matches gets an empty string. When the variable gates something — an allow list, a rate-limit key, a backend choice, a header — every unlisted client silently falls through: no limit, no check, or a proxy_pass to nowhere.',
  fix: 'write the default you mean explicitly: default 0; (or default ""; when empty is intended)',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if ((d.name !== 'map' && d.name !== 'geo') || !d.entries) return;
      const names = d.entries.map((e) => e.name).filter((n) => !n.startsWith(ANNOTATION_PREFIX));
      if (names.includes('default') || names.includes('include')) return;
      // One pair and no default is the idiom for "set only in this case" (limit_req keys).
      const pairs = names.filter((n) => !SETTINGS.has(n)).length;
      if (d.name === 'map' && pairs <= 1) return;
      // A map of a response header is only known once the response is made: it cannot gate access,
      // a rate-limit key or a proxy_pass, only response headers, where "" means the header is not sent.
      if (d.name === 'map' && RESPONSE_VARIABLE.test(d.args[0] ?? '')) return;
      hits.push({
        file: d.file,
        line: d.line,
        what: `${d.name} ${d.args.join(' ')} has ${pairs} entries and no default: anything else gets ""`,
      });
    });
    return hits;
  },
};
