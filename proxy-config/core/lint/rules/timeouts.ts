import { effectiveDirective } from '../../nginx-config/query.js';
import { formatNginxTime, parseNginxTime } from '../../nginx-config/units.js';
import { describeBlock, listProxiedLocations } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

const DEFAULT_READ_TIMEOUT = '60s';

/**
 * §4.7.5: each layer's timeout is shorter than the one outside it: app < proxy_read_timeout <
 * outer load balancer. The other layers are declared where they apply (inherited like directives):
 * `# proxyops: outer-timeout 60s` and `# proxyops: app-timeout 30s`.
 */
export const TIMEOUT_NOT_NESTED: LintRule = {
  id: 'timeout-not-nested',
  severity: 'warning',
  title: 'inner timeout not shorter than the outer one',
  message:
    'When an inner layer waits as long as or longer than the layer in front of it, the outer layer gives up first: clients see the load balancer 504 (or 499 in nginx logs) instead of a clean answer from the proxy, and the upstream keeps working on a request nobody waits for.',
  fix: 'proxy_read_timeout strictly between the app timeout (# proxyops: app-timeout T) and the outer load balancer timeout (# proxyops: outer-timeout T)',
  runbook: RUNBOOKS.timeoutsPerLayer,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block, chain, proxyPass } of listProxiedLocations(config)) {
      const outer = effectiveDirective(chain, 'proxyops:outer-timeout');
      const app = effectiveDirective(chain, 'proxyops:app-timeout');
      if (!outer && !app) continue;
      const setting = effectiveDirective(chain, 'proxy_read_timeout');
      const read = parseNginxTime(setting?.args[0] ?? DEFAULT_READ_TIMEOUT) ?? 0;
      const at = setting ?? proxyPass;
      const shown = `proxy_read_timeout ${formatNginxTime(read)}${setting ? '' : ' (default)'} for ${describeBlock(block)}`;
      const check = (
        note: NginxDirective | undefined,
        isBad: (declared: number) => boolean,
        relation: string,
      ) => {
        if (!note) return;
        const declared = parseNginxTime(note.args[0] ?? '');
        if (declared === undefined)
          hits.push({
            file: note.file,
            line: note.line,
            directive: note,
            what: `# ${note.name} "${note.args.join(' ')}" is not an nginx time`,
          });
        else if (isBad(declared))
          hits.push({
            file: at.file,
            line: at.line,
            directive: at,
            what: `${shown} is ${relation} ${formatNginxTime(declared)}`,
          });
      };
      check(outer, (t) => read >= t, 'not shorter than the outer timeout');
      check(app, (t) => t >= read, 'not longer than the app timeout');
    }
    return uniqueHits(hits);
  },
};

/** One hit per place and text: a server-level timeout shared by many locations is reported once per location. */
function uniqueHits(hits: RuleHit[]): RuleHit[] {
  return [...new Map(hits.map((hit) => [`${hit.file}:${hit.line}:${hit.what}`, hit])).values()];
}
