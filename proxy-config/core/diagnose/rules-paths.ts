import { isProxyGenerated, lastUpstream } from './access-record.js';
import type { DiagnosisRule } from './diagnosis-rule.js';
import type { Evidence, LocationFacts } from './evidence.js';

function toggledSlash(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
}

/** Upstream 404 paths whose twin with/without the trailing slash succeeded. */
function slashTwins(evidence: Evidence): string[] {
  const records = evidence.access?.records ?? [];
  const splitKnown = evidence.access?.splitKnown ?? true;
  const ok = new Set(
    records.filter((r) => r.status >= 200 && r.status < 400).map((r) => r.path.split('?')[0] ?? ''),
  );
  const missing = new Set(
    records
      .filter((r) => r.status === 404 && (splitKnown ? !isProxyGenerated(r) : lastUpstream(r) !== null))
      .map((r) => r.path.split('?')[0] ?? '')
      .filter((path) => path.length > 1 && ok.has(toggledSlash(path))),
  );
  return [...missing];
}

/** The URI part of proxy_pass (`http://app/v1` → `/v1`), or null when it has none. */
function proxyPassUri(proxyPass: string): string | null {
  const match = /^[a-z]+:\/\/[^/]+(\/.*)?$/i.exec(proxyPass);
  return match?.[1] ?? null;
}

function slashMismatch(location: LocationFacts): boolean {
  const uri = location.proxyPass ? proxyPassUri(location.proxyPass) : null;
  if (uri === null || location.path.startsWith('~') || location.path.startsWith('=')) return false;
  return location.path.endsWith('/') !== uri.endsWith('/');
}

/** Diagnoses of 404s caused by how nginx rewrites the path it forwards (conventions §4.1, §7.2). */
export const PATH_RULES: readonly DiagnosisRule[] = [
  {
    id: 'trailing-slash-mismatch',
    severity: 'medium',
    title:
      'the trailing slash differs between the location and the proxy_pass URI, so the forwarded path is wrong',
    symptoms: ['trailing-slash'],
    test(evidence) {
      const twins = slashTwins(evidence);
      const config = (evidence.config?.locations ?? [])
        .filter(slashMismatch)
        .map(
          (location) =>
            `config: location ${location.path} at ${location.where} proxies to ${location.proxyPass}: one ends in "/", the other does not`,
        );
      if (twins.length === 0 && config.length === 0) return null;
      return [
        ...twins
          .slice(0, 5)
          .map(
            (path) => `access log: ${path} got 404 from the upstream while ${toggledSlash(path)} succeeded`,
          ),
        ...config,
      ];
    },
    nextSteps: [
      'Make the location and the proxy_pass URI agree: both end in "/" (`location /api/ { proxy_pass http://app/; }`) or neither has a URI part.',
      'Compare the path the application receives with the one the client sent (the application log, or an echo endpoint).',
    ],
    runbook: 'runbooks/trailing-slash-404.md#location-and-proxy_pass-disagree-on-the-slash',
  },
];
