import {
  childrenNamed,
  effectiveDirective,
  listLocations,
  listServers,
  type BlockScope,
} from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import { parseNginxSize } from '../../nginx-config/units.js';
import { describeBlock, listProxiedLocations } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';

/** nginx's default client_max_body_size. */
const DEFAULT_LIMIT = '1m';

/** Bytes of a body limit; `0` switches the check off, so it counts as unlimited. */
function limitBytes(value: string): number {
  const bytes = parseNginxSize(value) ?? Number.NaN;
  return bytes === 0 ? Number.POSITIVE_INFINITY : bytes;
}

const at = (d: NginxDirective) => `${d.file}:${d.line}`;

/**
 * §8 and §7.3: the body limit of a route stays within the global one unless said so
 * (`# proxyops: ignore body-size-inconsistent` in that block), and no limit along the chain is
 * above the outer layer's (`# proxyops: outer-body-limit 10m`); nor is nginx's limit for a proxied
 * location above the application's (`# proxyops: app-body-limit 10m`), or the whole body crosses
 * the proxy only for the app to answer 413.
 */
export const BODY_SIZE_INCONSISTENT: LintRule = {
  id: 'body-size-inconsistent',
  severity: 'warning',
  title: 'client_max_body_size differs along the chain',
  message:
    'The lowest body limit along the layer chain (CDN, load balancer, proxy, app) is the one users hit, with a 413 from whichever layer has it. A route raised above the global limit, or a proxy limit above the outer layer or the application, accepts uploads that another layer rejects.',
  fix: 'keep per-route client_max_body_size at or below the server/http value (mark deliberate exceptions with # proxyops: ignore body-size-inconsistent), at or below the outer layer (# proxyops: outer-body-limit SIZE) and the application (# proxyops: app-body-limit SIZE)',
  runbook: RUNBOOKS.bodyLimit,
  test: (config) => {
    const hits = new Map<string, RuleHit>();
    const scopes: BlockScope[] = [...listServers(config), ...listLocations(config)];
    for (const { block, chain } of scopes) {
      const own = childrenNamed(block, 'client_max_body_size')[0];
      const outer = effectiveDirective(chain.slice(0, -1), 'client_max_body_size');
      if (own && outer && limitBytes(own.args[0] ?? '') > limitBytes(outer.args[0] ?? ''))
        hits.set(at(own), {
          file: own.file,
          line: own.line,
          directive: own,
          what: `${describeBlock(block)} raises client_max_body_size to ${own.args[0] ?? ''} above ${outer.args[0] ?? ''} set at ${at(outer)}`,
        });
    }
    const declaredLimit = (scope: BlockScope, annotation: string, layer: string) => {
      const declared = effectiveDirective(scope.chain, annotation);
      if (!declared) return;
      const effective = effectiveDirective(scope.chain, 'client_max_body_size');
      const value = effective?.args[0] ?? DEFAULT_LIMIT;
      const where = effective ?? scope.block;
      if (limitBytes(value) > limitBytes(declared.args[0] ?? ''))
        hits.set(`${at(where)} ${annotation}`, {
          file: where.file,
          line: where.line,
          directive: where,
          what: `client_max_body_size ${value}${effective ? '' : ' (default)'} for ${describeBlock(scope.block)} is above ${layer} ${declared.args[0] ?? ''}`,
        });
    };
    for (const scope of scopes) declaredLimit(scope, 'proxyops:outer-body-limit', "the outer layer's");
    for (const scope of listProxiedLocations(config))
      declaredLimit(scope, 'proxyops:app-body-limit', "the application's");
    return [...hits.values()];
  },
};
