import type { DiagnosisRule } from './diagnosis-rule.js';

function isHtml(contentType: string | null): boolean {
  return contentType !== null && /text\/html/i.test(contentType);
}

/** Diagnoses of redirects to http and stale pages (conventions §4.6, §7.3): headers between the layers. */
export const HEADER_RULES: readonly DiagnosisRule[] = [
  {
    id: 'forwarded-proto-missing',
    severity: 'high',
    title: 'X-Forwarded-Proto is not forwarded, so the application builds http:// URLs',
    symptoms: ['redirect-loop'],
    test(evidence) {
      const url = evidence.probe?.url ?? '';
      const head = evidence.probe?.head;
      const downgrade = url.startsWith('https:') && head?.location?.startsWith('http:') === true;
      const config = (evidence.config?.locations ?? [])
        .filter((location) => location.proxyPass && !('x-forwarded-proto' in location.proxySetHeaders))
        .map(
          (location) =>
            `config: ${location.where} proxies to ${location.proxyPass} without proxy_set_header X-Forwarded-Proto`,
        );
      if (!downgrade && config.length === 0) return null;
      return [
        ...(downgrade && head ? [`probe: HEAD ${url} → ${head.status} Location: ${head.location}`] : []),
        ...config,
      ];
    },
    nextSteps: [
      'Add `proxy_set_header X-Forwarded-Proto $scheme;` to the proxying locations (or pass on the value from the TLS-terminating layer in front).',
      'Make the application trust that header from the proxy (e.g. trust proxy settings).',
      'Verify: `curl -sI https://HOST/PATH` shows an https Location, or `proxyops diagnose redirect-loop --url URL` finds nothing.',
    ],
    runbook: 'runbooks/redirect-to-http.md#x-forwarded-proto',
  },
  {
    id: 'html-cached',
    severity: 'high',
    title: 'HTML is served cacheable, so old pages survive a deployment',
    symptoms: ['stale-html'],
    test(evidence) {
      const get = evidence.probe?.get;
      if (!get || get.status < 200 || get.status >= 300 || !isHtml(get.contentType)) return null;
      const cacheControl = get.cacheControl ?? '';
      const revalidated = /no-cache|no-store|max-age=0\b/i.test(cacheControl);
      if (revalidated && get.age === null) return null;
      return [
        `probe: GET ${evidence.probe?.url} → ${get.status} ${get.contentType}, Cache-Control: ${get.cacheControl ?? '(none: caches may keep it heuristically)'}`,
        ...(get.age !== null ? [`probe: Age: ${get.age}, the page came out of a cache`] : []),
      ];
    },
    nextSteps: [
      'Serve HTML with `Cache-Control: no-cache`; give only content-hashed assets long max-age and immutable.',
      'Invalidate the HTML at the CDN edge after each deployment.',
      'Verify: `proxyops diagnose stale-html --url URL` finds nothing, and Age is absent or 0.',
    ],
    runbook: 'runbooks/stale-page-after-deploy.md#cache-control',
  },
];
