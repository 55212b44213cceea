import { formatBytes, statusFacts, countsPart } from './access-facts.js';
import type { DiagnosisRule } from './diagnosis-rule.js';
import { describeErrors, errorsOf } from './error-facts.js';
import type { BodyLimitLayer, Evidence } from './evidence.js';
import { candidatesNote, locationsServing } from './locations-serving.js';
import { describeSettingInEffect } from './setting-in-effect.js';
import { symptomRequests } from './symptom-requests.js';

function lowestLayer(evidence: Evidence): BodyLimitLayer | null {
  return evidence.probe?.bodyLimits?.layers[0] ?? null;
}

function isNginxServer(server: string | null): boolean {
  return server !== null && /^nginx\b/i.test(server);
}

function probeLine(layer: BodyLimitLayer): string {
  return `probe: ${layer.layer} answers 413 from ${formatBytes(layer.firstRejected)} on (limit ${formatBytes(layer.firstRejected - 1)})`;
}

function configLimits(evidence: Evidence): string[] {
  const locations = locationsServing(symptomRequests(evidence), evidence.config);
  return [
    ...candidatesNote(locations, 'client_max_body_size'),
    ...locations.map((location) =>
      describeSettingInEffect(
        location.clientMaxBodySizeSet,
        location.clientMaxBodySize === 0 ? 'unlimited' : formatBytes(location.clientMaxBodySize),
        location.where,
      ),
    ),
  ];
}

/** Diagnoses of 413 (conventions §7.2, §7.3): which layer's body limit is the lowest. */
export const BODY_LIMIT_RULES: readonly DiagnosisRule[] = [
  {
    id: 'proxy-body-limit',
    severity: 'high',
    title: "nginx's client_max_body_size rejects the request body",
    symptoms: ['413'],
    test(evidence) {
      const errors = errorsOf(evidence, ['body-too-large']);
      const facts = statusFacts(evidence, 413);
      const layer = lowestLayer(evidence);
      const byNginx = layer !== null && layer.nginxPage;
      if (errors.length === 0 && facts.proxyGenerated === 0 && !byNginx) return null;
      const largest = Math.max(0, ...errors.map((line) => line.bodyBytes ?? 0));
      return [
        ...describeErrors(errors, `client intended to send too large body (largest ${formatBytes(largest)})`),
        ...(facts.proxyGenerated > 0
          ? [
              `access log: ${facts.proxyGenerated} of ${facts.total} 413s produced by nginx itself (no upstream attempted)`,
            ]
          : []),
        ...(byNginx && layer ? [probeLine(layer)] : []),
        ...configLimits(evidence),
      ];
    },
    nextSteps: [
      'Find the location the upload goes to and its effective client_max_body_size (server and http values are inherited).',
      'Raise client_max_body_size there to the largest legitimate body, not globally; keep the layers in front and behind at least as high.',
      'Validate with `nginx -t`, reload, and re-run `proxyops diagnose 413 --url URL` to see the new limit.',
    ],
    runbook: 'runbooks/413.md#nginx-rejects-the-body',
    clientCount: (evidence) =>
      evidence.access?.splitKnown ? statusFacts(evidence, 413).proxyGenerated : null,
  },
  {
    id: 'upstream-body-limit',
    severity: 'high',
    title: 'the application behind nginx rejects the request body',
    symptoms: ['413'],
    test(evidence) {
      const facts = statusFacts(evidence, 413);
      const layer = lowestLayer(evidence);
      const byUpstream = layer !== null && !layer.nginxPage && isNginxServer(layer.server);
      if (facts.upstreamReturned === 0 && !byUpstream) return null;
      return [
        ...(facts.upstreamReturned > 0
          ? [
              `access log: ${facts.upstreamReturned} of ${facts.total} 413s returned by the upstream${countsPart(facts.returnedUpstreams, ' (', ')')}`,
            ]
          : []),
        ...(byUpstream && layer ? [probeLine(layer)] : []),
        ...configLimits(evidence),
      ];
    },
    nextSteps: [
      "Raise the application server's body limit (framework body parser, app server, or an nginx behind this one).",
      'Keep nginx client_max_body_size at or above the same value so the two agree.',
      'Re-run `proxyops diagnose 413 --url URL` and check that the limit moved.',
    ],
    runbook: 'runbooks/413.md#the-application-rejects-the-body',
    clientCount: (evidence) =>
      evidence.access?.splitKnown ? statusFacts(evidence, 413).upstreamReturned : null,
  },
  {
    id: 'other-layer-body-limit',
    severity: 'high',
    title: 'a layer in front of nginx (CDN, load balancer) rejects the request body',
    symptoms: ['413'],
    test(evidence) {
      const layer = lowestLayer(evidence);
      if (layer === null || layer.nginxPage || isNginxServer(layer.server)) return null;
      const facts = statusFacts(evidence, 413);
      return [
        probeLine(layer),
        `probe: the 413 carries Server "${layer.server ?? ''}", not nginx's, and is not nginx's error page`,
        ...(evidence.access && facts.total === 0
          ? [
              `access log: no 413 in ${evidence.access.records.length} records; the requests never reached nginx`,
            ]
          : []),
        ...configLimits(evidence),
      ];
    },
    nextSteps: [
      'Identify the layer from its Server header and raise its request body limit (CDN, load balancer, ingress).',
      'Keep the outer layers at or above the nginx limit so nginx, which logs it, is the one that rejects.',
      'Re-run `proxyops diagnose 413 --url URL` against the public URL.',
    ],
    runbook: 'runbooks/413.md#another-layer-rejects-the-body',
  },
];
