import { describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { judgeAdvisory } from '../../../proxy-config/core/lint/advisories/judge-advisory.js';
import { hasOverlappingCaptures } from '../../../proxy-config/core/lint/advisories/advisory-patterns.js';
import {
  NGINX_ADVISORIES,
  type NginxAdvisory,
} from '../../../proxy-config/core/lint/advisories/nginx-advisories.js';
import { compareDebianVersions } from '../../../proxy-config/core/nginx-config/debian-version.js';
import {
  compareNginxVersions,
  type NginxIdentity,
} from '../../../proxy-config/core/nginx-config/nginx-identity.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const http = (body: string) => `events {}\nhttp {\n${body}\n}\n`;
const server = (body: string) => http(`server {\nlisten 127.0.0.1:8080;\n${body}\n}`);
const tls = (body: string) =>
  http(
    `server {\nlisten 443 ssl;\nserver_name a.example;\nssl_certificate a.pem;\nssl_certificate_key a.key;\n${body}\n}`,
  );
const mail = (body: string) => `events {}\nmail {\nauth_http 127.0.0.1:9/auth;\n${body}\n}\n`;
const http3 = (listen: string) =>
  http(
    `server {\n${listen}\nlisten 443 ssl;\nssl_certificate a.pem;\nssl_certificate_key a.key;\nlocation / { return 204; }\n}`,
  );
const mp4 = (inside: string) => server(`location /videos/ {\nroot /srv;\n${inside}\n}`);
const charset = (line: string) =>
  http(
    `charset_map koi8-r utf-8 {\nC0 D18E;\n}\nsource_charset utf-8;\n${line}\nserver {\nlisten 127.0.0.1:8080;\nlocation / { root /srv; }\n}`,
  );
const clientCerts = (second: string) =>
  http(
    `server {\nlisten 443 ssl;\nserver_name admin.example;\nssl_certificate a.pem;\nssl_certificate_key a.key;\nssl_client_certificate ca.pem;\nssl_verify_client on;\n}\nserver {\nlisten 443 ssl;\nserver_name www.example;\nssl_certificate a.pem;\nssl_certificate_key a.key;\n${second}\n}`,
  );

/**
 * For each advisory, a config showing its pattern and its near twin without it (the one change
 * the finding's workaround names, where there is one).
 */
const CONFIGS: Record<string, { with: string; without: string }> = {
  'CVE-2026-42533': {
    with: `map $uri $pool {\n~^/eu/ eu;\ndefault us;\n}\n${server('location ~ ^/go/(.*)$ { return 302 https://$pool.example.com/$1?r=$pool; }')}`,
    without: `map $uri $pool {\n~^/eu/ eu;\ndefault us;\n}\n${server('location ~ ^/go/(?<path>.*)$ { return 302 https://$pool.example.com/$path?r=$pool; }')}`,
  },
  'CVE-2026-60005': {
    with: server('location ~ ^/media/(.*)$ {\nslice 1m;\nproxy_pass http://127.0.0.1:9/$1$slice_range;\n}'),
    without: server(
      'location ~ ^/media/(?<file>.*)$ {\nslice 1m;\nproxy_pass http://127.0.0.1:9/$file$slice_range;\n}',
    ),
  },
  'CVE-2026-56434': {
    with: server('location / {\nssi on;\nproxy_pass http://127.0.0.1:9;\n}'),
    without: server(
      'location /static/ {\nssi on;\nroot /srv;\n}\nlocation / {\nproxy_pass http://127.0.0.1:9;\n}',
    ),
  },
  'CVE-2026-42055': {
    with: server('ignore_invalid_headers off;\nlocation / { grpc_pass grpc://127.0.0.1:9; }'),
    without: server('ignore_invalid_headers on;\nlocation / { grpc_pass grpc://127.0.0.1:9; }'),
  },
  'CVE-2026-48142': { with: charset('charset koi8-r;'), without: charset('charset off;') },
  'CVE-2026-42934': { with: charset('charset koi8-r;'), without: charset('charset off;') },
  'CVE-2026-9256': {
    with: server('rewrite ^/(shop/(\\d+))$ /item?id=$2 last;'),
    without: server('rewrite ^/(shop/(?:\\d+))$ /item?id=$1 last;'),
  },
  'CVE-2026-42926': {
    with: server(
      'location / {\nproxy_http_version 2;\nproxy_set_body $request_body;\nproxy_pass https://127.0.0.1:9;\n}',
    ),
    without: server(
      'location / {\nproxy_http_version 1.1;\nproxy_set_body $request_body;\nproxy_pass https://127.0.0.1:9;\n}',
    ),
  },
  'CVE-2026-42945': {
    with: server('location /old/ {\nrewrite ^/old/(.*)$ /new/$1?from=old;\nset $moved 1;\n}'),
    without: server('location /old/ {\nrewrite ^/old/(?<rest>.*)$ /new/$rest?from=old;\nset $moved 1;\n}'),
  },
  'CVE-2026-42946': {
    with: server('location / { uwsgi_pass 127.0.0.1:9; }'),
    without: server('location / { proxy_pass http://127.0.0.1:9; }'),
  },
  'CVE-2026-40701': {
    with: tls('ssl_client_certificate ca.pem;\nssl_verify_client on;\nssl_ocsp on;\nresolver 127.0.0.53;'),
    without: tls(
      'ssl_client_certificate ca.pem;\nssl_verify_client on;\nssl_ocsp off;\nresolver 127.0.0.53;',
    ),
  },
  'CVE-2026-27654': {
    with: server('location /dav/ {\nalias /srv/dav/;\ndav_methods PUT DELETE MKCOL COPY MOVE;\n}'),
    without: server('location /dav/ {\nroot /srv;\ndav_methods PUT DELETE MKCOL COPY MOVE;\n}'),
  },
  'CVE-2026-27651': {
    with: mail('server {\nlisten 25;\nprotocol smtp;\nsmtp_auth login plain cram-md5;\n}'),
    without: mail('server {\nlisten 25;\nprotocol smtp;\nsmtp_auth login plain;\n}'),
  },
  'CVE-2026-28753': {
    with: mail('resolver 127.0.0.53;\nserver {\nlisten 25;\nprotocol smtp;\n}'),
    without: mail('resolver off;\nserver {\nlisten 25;\nprotocol smtp;\n}'),
  },
  'CVE-2026-28755': {
    with: 'events {}\nstream {\nserver {\nlisten 9443 ssl;\nssl_certificate a.pem;\nssl_certificate_key a.key;\nssl_verify_client on;\nssl_ocsp on;\nproxy_pass 127.0.0.1:9;\n}\n}\n',
    without:
      'events {}\nstream {\nserver {\nlisten 9443 ssl;\nssl_certificate a.pem;\nssl_certificate_key a.key;\nssl_verify_client on;\nproxy_pass 127.0.0.1:9;\n}\n}\n',
  },
  'CVE-2026-1642': {
    with: server('location / { proxy_pass https://10.0.0.5; }'),
    without: server('location / { proxy_pass http://10.0.0.5; }'),
  },
  'CVE-2025-53859': {
    with: mail('server {\nlisten 25;\nprotocol smtp;\nsmtp_auth none;\n}'),
    without: mail('server {\nlisten 25;\nprotocol smtp;\nsmtp_auth login;\n}'),
  },
  'CVE-2025-23419': {
    with: clientCerts(''),
    without: clientCerts('ssl_client_certificate ca.pem;\nssl_verify_client on;'),
  },
  'CVE-2021-23017': {
    with: server('resolver 127.0.0.53;\nlocation / { proxy_pass http://app.internal:8080; }'),
    without: server('location / { proxy_pass http://10.0.0.5:8080; }'),
  },
};
const HTTP3 = { with: http3('listen 443 quic reuseport;'), without: http3('') };
const MP4 = { with: mp4('mp4;'), without: mp4('flv;') };
for (const a of NGINX_ADVISORIES) {
  if (a.pattern === 'http3') CONFIGS[a.cve] = HTTP3;
  if (a.pattern === 'mp4') CONFIGS[a.cve] = MP4;
}

function advisoryFindings(text: string, nginx: NginxIdentity, cve: string) {
  const report = lintNginxConfig(
    { mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') },
    nginx,
  );
  return {
    findings: report.findings.filter((f) => f.ruleId === 'nginx-advisory' && f.what.startsWith(`${cve} `)),
    unknown: (report.nginx?.unknownAdvisories ?? []).filter((u) => u.startsWith(`${cve} `)),
  };
}

const versions = (list: string) =>
  list
    .split(',')
    .flatMap((range) => range.trim().replace(/\+$/, '').split('-'))
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v))
    .sort(compareNginxVersions);
/** The last vulnerable release, and the newest fixed one, as nginx.org lists them. */
const lastVulnerable = (a: NginxAdvisory) => versions(a.vulnerable).at(-1) as string;
const newestFixed = (a: NginxAdvisory) => versions(a.notVulnerable).at(-1) as string;
const given = (version: string, debianVersion?: string, machine = 'i686'): NginxIdentity => ({
  version,
  source: 'test',
  machine,
  ...(debianVersion ? { debianVersion } : {}),
});

describe('nginx-advisory: one test per advisory, version and pattern', () => {
  it('has a config with and without the pattern for every advisory', () => {
    expect(NGINX_ADVISORIES.length).toBe(32);
    for (const a of NGINX_ADVISORIES) expect(CONFIGS[a.cve], a.cve).toBeDefined();
  });

  it.each(NGINX_ADVISORIES.map((a) => [a.cve, a]))(
    '%s: fires on a vulnerable version with the pattern, quiet on a fixed version or without the pattern',
    (cve, advisory) => {
      const { with: withPattern, without } = CONFIGS[cve]!;
      const vulnerable = given(lastVulnerable(advisory));
      const found = advisoryFindings(withPattern, vulnerable, cve).findings;
      expect(found).toHaveLength(1);
      expect(found[0]!.what).toContain(advisory.advisory);
      expect(found[0]!.what).toContain(`upgrade to `);
      expect(found[0]!.severity).toBe(advisory.severity === 'low' ? 'warning' : 'error');
      expect(advisoryFindings(withPattern, given(newestFixed(advisory)), cve).findings).toEqual([]);
      expect(advisoryFindings(without, vulnerable, cve).findings).toEqual([]);
      // No version known: never a finding, but said to be unknown where the pattern holds.
      const unknown = advisoryFindings(withPattern, { source: 'none given' }, cve);
      expect(unknown.findings).toEqual([]);
      expect(unknown.unknown).toEqual([expect.stringContaining('unknown, the nginx version is unknown')]);
      expect(advisoryFindings(without, { source: 'none given' }, cve).unknown).toEqual([]);
    },
  );

  const debianFixed = NGINX_ADVISORIES.flatMap((a) =>
    (a.debianFixed ?? []).map((fix): [string, string, NginxAdvisory] => [a.cve, fix, a]),
  );
  it.each(debianFixed)("%s: Debian's backport counts (fixed from %s)", (cve, fix, advisory) => {
    const upstream = fix.replace(/-[^-]*$/, '');
    const { with: withPattern } = CONFIGS[cve]!;
    expect(advisoryFindings(withPattern, given(upstream, fix), cve).findings).toEqual([]);
    const before = fix
      .replace(/\+deb12u(\d+)$/, (_, n: string) => (n === '1' ? '' : `+deb12u${Number(n) - 1}`))
      .replace(/\.1$/, '');
    expect(compareDebianVersions(before, fix)).toBeLessThan(0);
    // Debian patched some it was not exposed to (stream OCSP came in 1.27.2): nothing to report there.
    const exposed = judgeAdvisory(advisory, given(upstream)).status === 'affected';
    expect(advisoryFindings(withPattern, given(upstream, before), cve).findings, before).toHaveLength(
      exposed ? 1 : 0,
    );
    // A Debian build of another release: the table cannot tell whether Debian backported the fix.
    const other = advisoryFindings(
      withPattern,
      given(lastVulnerable(advisory), `${lastVulnerable(advisory)}-1`),
      cve,
    );
    expect(other.findings).toEqual([]);
    expect(other.unknown).toEqual([expect.stringContaining('may carry a backported fix')]);
  });
});

describe('a flaw of 32-bit platforms (CVE-2026-27784)', () => {
  const [cve, text] = ['CVE-2026-27784', MP4.with];
  it('holds on a 32-bit machine, not on a 64-bit one, and is unknown when the machine is', () => {
    expect(advisoryFindings(text, given('1.29.6', undefined, 'armv7l'), cve).findings).toHaveLength(1);
    expect(advisoryFindings(text, given('1.29.6', undefined, 'x86_64'), cve).findings).toEqual([]);
    const unknown = advisoryFindings(text, { version: '1.29.6', source: '--nginx-version' }, cve);
    expect(unknown.findings).toEqual([]);
    expect(unknown.unknown).toEqual([
      expect.stringContaining('32-bit platforms only and the platform is unknown'),
    ]);
  });
});

describe("judgeAdvisory reads nginx.org's version lists as its maintainers do", () => {
  const byCve = (cve: string) => NGINX_ADVISORIES.find((a) => a.cve === cve)!;
  it.each([
    ['CVE-2026-42945', '1.30.0', 'affected'],
    ['CVE-2026-42945', '1.30.1', 'fixed'],
    ['CVE-2026-42945', '1.28.3', 'affected'],
    ['CVE-2026-42945', '1.31.0', 'fixed'],
    ['CVE-2026-42945', '1.32.0', 'fixed'],
    ['CVE-2025-53859', '1.28.0', 'affected'],
    ['CVE-2026-42530', '1.30.0', 'unaffected'],
    ['CVE-2024-32760', '1.26.0', 'affected'],
    ['CVE-2024-32760', '1.26.1', 'fixed'],
    ['CVE-2022-41741', '1.22.0', 'affected'],
    ['CVE-2022-41741', '1.22.1', 'fixed'],
  ])('%s on %s: %s', (cve, version, status) => {
    expect(judgeAdvisory(byCve(cve), given(version)).status).toBe(status);
  });
});

describe('compareDebianVersions (dpkg --compare-versions)', () => {
  it.each([
    ['1.22.1-9+deb12u10', '1.22.1-9+deb12u9', 1],
    ['1.22.1-9', '1.22.1-9+deb12u1', -1],
    ['1:1.0-1', '2.0-1', 1],
    ['1.0~rc1-1', '1.0-1', -1],
    ['1.18.0-6.1', '1.18.0-6', 1],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareDebianVersions(a, b))).toBe(sign);
  });
});

describe('hasOverlappingCaptures', () => {
  it.each([
    ['^/(a(b))$', true],
    ['^/(?<x>a(b))$', true],
    ['^/(a(?:b))$', false],
    ['^/(a)(b)$', false],
    ['^/\\(a(b)\\)$', false],
    ['^/[(](a)$', false],
  ])('%s: %s', (regex, overlapping) => {
    expect(hasOverlappingCaptures(regex)).toBe(overlapping);
  });
});
