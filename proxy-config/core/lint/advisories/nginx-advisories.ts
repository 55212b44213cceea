import type { AdvisoryPatternName } from './advisory-patterns.js';

/**
 * nginx's security advisories whose vulnerable versions reach 1.18.0 or later, as nginx.org lists
 * them (https://nginx.org/en/security_advisories.html; its source, nginx/nginx.org's
 * xml/en/security_advisories.xml, read at 3924a7f8, 2026-07-22): the name, severity, the
 * `Vulnerable:` and `Not vulnerable:` versions and the advisory link, copied as written. Debian's
 * fixes come from the changelog of Debian 12's nginx package (/usr/share/doc/nginx/changelog.Debian.gz
 * of 1.22.1-9+deb12u12; 1.18.0-6.1 from the same changelog's history). `pattern` names the config
 * pattern (advisory-patterns.ts) without which the flaw is not reached, read from the CVE's line in
 * nginx's CHANGES.
 */
export interface NginxAdvisory {
  cve: string;
  title: string;
  severity: 'major' | 'medium' | 'low';
  /** nginx.org's `Vulnerable:` (ranges `a-b` or single versions, comma-separated). */
  vulnerable: string;
  /** nginx.org's `Not vulnerable:` (`1.31.0+, 1.30.1+`: the newest from there on, the others on their branch). */
  notVulnerable: string;
  advisory: string;
  /** Debian package versions carrying the fix, each for the nginx release it packages. */
  debianFixed?: readonly string[];
  pattern: AdvisoryPatternName;
  /** Set when the flaw is reached on 32-bit platforms only (its CHANGES line says so). */
  only32Bit?: true;
}

/** What each pattern is, in words, and the config change that takes a config out of it. */
export const PATTERN_TEXT: Record<AdvisoryPatternName, { what: string; workaround: string }> = {
  mapRegexInExpression: {
    what: 'a map with regex entries whose variable follows an unnamed capture ($1) in a string expression',
    workaround: 'named captures (?<name>…) in that expression',
  },
  sliceWithCaptures: {
    what: 'slice (or a background cache update) with unnamed regex captures ($1) in use',
    workaround: 'use named captures (?<name>…) instead of $1…$9',
  },
  ssiOnProxied: {
    what: 'ssi on in a location that proxies',
    workaround: 'turn ssi off where responses come from a backend',
  },
  http3: { what: 'HTTP/3 (listen … quic)', workaround: 'drop the quic listen until upgraded' },
  invalidHeadersToHttp2: {
    what: 'ignore_invalid_headers off with a gRPC or HTTP/2 backend',
    workaround: 'ignore_invalid_headers on; (the default)',
  },
  charsetFromUtf8: {
    what: 'charset recoding from UTF-8 with a charset_map',
    workaround: 'drop the charset recoding (charset off;)',
  },
  overlappingCaptures: {
    what: 'a rewrite-module regex (rewrite, if ~) with a capture inside another',
    workaround: 'make the inner group non-capturing: (?:…)',
  },
  setBodyToHttp2: {
    what: 'proxy_set_body to an HTTP/2 backend (proxy_http_version 2)',
    workaround: 'proxy_http_version 1.1; where proxy_set_body is used',
  },
  rewriteCapturesWithQuery: {
    what: 'a rewrite whose replacement has unnamed captures ($1) and a ?, followed by rewrite, if or set',
    workaround: 'use named captures (?<name>…) in that rewrite',
  },
  scgiOrUwsgi: { what: 'scgi_pass or uwsgi_pass', workaround: 'none but the upgrade' },
  sslOcsp: {
    what: 'ssl_ocsp (client certificates checked with OCSP)',
    workaround: 'ssl_ocsp off; until upgraded',
  },
  davCopyWithAlias: {
    what: 'WebDAV COPY or MOVE in a location with alias',
    workaround: 'root instead of alias there, or no COPY/MOVE in dav_methods',
  },
  mp4: {
    what: 'the mp4 directive (ngx_http_mp4_module)',
    workaround: 'serve untrusted mp4 files without the mp4 directive',
  },
  mailCramMd5OrApop: {
    what: 'mail authentication with CRAM-MD5 or APOP',
    workaround: 'drop cram-md5/apop from *_auth',
  },
  mailResolver: {
    what: 'a resolver in mail (PTR lookups of clients)',
    workaround: 'resolver off; in mail',
  },
  streamSslOcsp: { what: 'ssl_ocsp in stream', workaround: 'none but the upgrade' },
  sslUpstream: {
    what: 'proxying to an SSL backend (https://, grpcs://, suwsgi://)',
    workaround: 'none but the upgrade',
  },
  smtpAuthNone: { what: 'smtp_auth none', workaround: 'drop none from smtp_auth' },
  clientCertsBesideOtherServers: {
    what: 'ssl_verify_client in one TLS server beside TLS servers that do not check client certificates',
    workaround: 'ssl_session_cache off; ssl_session_tickets off; in the verifying server',
  },
  resolver: { what: 'the resolver directive', workaround: 'none but the upgrade' },
};

export const NGINX_ADVISORIES: readonly NginxAdvisory[] = [
  {
    cve: 'CVE-2026-42533',
    title: 'Buffer overflow when using map and regex',
    severity: 'major',
    vulnerable: '0.9.6-1.31.2',
    notVulnerable: '1.31.3+, 1.30.4+',
    advisory: 'https://my.f5.com/manage/s/article/K000162097',
    debianFixed: ['1.22.1-9+deb12u10'],
    pattern: 'mapRegexInExpression',
  },
  {
    cve: 'CVE-2026-60005',
    title: 'Memory disclosure when using ngx_http_slice_module',
    severity: 'medium',
    vulnerable: '1.15.8-1.31.2',
    notVulnerable: '1.31.3+, 1.30.4+',
    advisory: 'https://my.f5.com/manage/s/article/K000162100',
    debianFixed: ['1.22.1-9+deb12u10'],
    pattern: 'sliceWithCaptures',
  },
  {
    cve: 'CVE-2026-56434',
    title: 'Use-after-free when using ngx_http_ssi_module',
    severity: 'medium',
    vulnerable: '0.8.11-1.31.2',
    notVulnerable: '1.31.3+, 1.30.4+',
    advisory: 'https://my.f5.com/manage/s/article/K000162098',
    debianFixed: ['1.22.1-9+deb12u10'],
    pattern: 'ssiOnProxied',
  },
  {
    cve: 'CVE-2026-42530',
    title: 'Use-after-free in HTTP/3',
    severity: 'major',
    vulnerable: '1.31.0-1.31.1',
    notVulnerable: '1.31.2+',
    advisory: 'https://my.f5.com/manage/s/article/K000161616',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2026-42055',
    title: 'Buffer overflow in the ngx_http_proxy_v2_module and ngx_http_grpc_module',
    severity: 'medium',
    vulnerable: '1.13.10-1.31.1',
    notVulnerable: '1.31.2+, 1.30.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000161584',
    debianFixed: ['1.22.1-9+deb12u9'],
    pattern: 'invalidHeadersToHttp2',
  },
  {
    cve: 'CVE-2026-48142',
    title: 'Buffer overread in the ngx_http_charset_module',
    severity: 'low',
    vulnerable: '0.3.50-1.31.1',
    notVulnerable: '1.31.2+, 1.30.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000161585',
    debianFixed: ['1.22.1-9+deb12u9'],
    pattern: 'charsetFromUtf8',
  },
  {
    cve: 'CVE-2026-9256',
    title: 'Buffer overflow in the ngx_http_rewrite_module',
    severity: 'medium',
    vulnerable: '0.1.17-1.31.0',
    notVulnerable: '1.31.1+, 1.30.2+',
    advisory: 'https://my.f5.com/manage/s/article/K000161377',
    debianFixed: ['1.22.1-9+deb12u8'],
    pattern: 'overlappingCaptures',
  },
  {
    cve: 'CVE-2026-42926',
    title: 'HTTP/2 request injection in the ngx_http_proxy_module',
    severity: 'medium',
    vulnerable: '1.29.4-1.30.0',
    notVulnerable: '1.31.0+, 1.30.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000161131',
    pattern: 'setBodyToHttp2',
  },
  {
    cve: 'CVE-2026-42945',
    title: 'Buffer overflow in the ngx_http_rewrite_module',
    severity: 'medium',
    vulnerable: '0.6.27-1.30.0',
    notVulnerable: '1.31.0+, 1.30.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000161019',
    debianFixed: ['1.22.1-9+deb12u7'],
    pattern: 'rewriteCapturesWithQuery',
  },
  {
    cve: 'CVE-2026-42946',
    title: 'Buffer overread in the ngx_http_scgi_module and ngx_http_uwsgi_module',
    severity: 'medium',
    vulnerable: '0.8.42-1.30.0',
    notVulnerable: '1.31.0+, 1.30.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000161027',
    debianFixed: ['1.22.1-9+deb12u8'],
    pattern: 'scgiOrUwsgi',
  },
  {
    cve: 'CVE-2026-42934',
    title: 'Buffer overread in the ngx_http_charset_module',
    severity: 'low',
    vulnerable: '0.3.50-1.30.0',
    notVulnerable: '1.31.0+, 1.30.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000161028',
    debianFixed: ['1.22.1-9+deb12u7'],
    pattern: 'charsetFromUtf8',
  },
  {
    cve: 'CVE-2026-40460',
    title: 'HTTP/3 address spoofing',
    severity: 'medium',
    vulnerable: '1.25.0-1.30.0',
    notVulnerable: '1.31.0+, 1.30.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000161068',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2026-40701',
    title: 'resolver use-after-free in OCSP',
    severity: 'medium',
    vulnerable: '1.19.0-1.30.0',
    notVulnerable: '1.31.0+, 1.30.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000161021',
    debianFixed: ['1.22.1-9+deb12u7'],
    pattern: 'sslOcsp',
  },
  {
    cve: 'CVE-2026-27654',
    title: 'Buffer overflow in ngx_http_dav_module',
    severity: 'medium',
    vulnerable: '0.5.13-1.29.6',
    notVulnerable: '1.29.7+, 1.28.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000160382',
    debianFixed: ['1.22.1-9+deb12u5'],
    pattern: 'davCopyWithAlias',
  },
  {
    cve: 'CVE-2026-27784',
    title: 'Buffer overflow in the ngx_http_mp4_module',
    severity: 'medium',
    vulnerable: '1.1.19-1.29.6',
    notVulnerable: '1.29.7+, 1.28.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000160364',
    debianFixed: ['1.22.1-9+deb12u5'],
    pattern: 'mp4',
    only32Bit: true,
  },
  {
    cve: 'CVE-2026-32647',
    title: 'Buffer overflow in the ngx_http_mp4_module',
    severity: 'medium',
    vulnerable: '1.1.19-1.29.6',
    notVulnerable: '1.29.7+, 1.28.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000160366',
    debianFixed: ['1.22.1-9+deb12u5'],
    pattern: 'mp4',
  },
  {
    cve: 'CVE-2026-27651',
    title: 'NULL pointer dereference while using CRAM-MD5 or APOP',
    severity: 'low',
    vulnerable: '0.5.15-1.29.6',
    notVulnerable: '1.29.7+, 1.28.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000160383',
    debianFixed: ['1.22.1-9+deb12u5'],
    pattern: 'mailCramMd5OrApop',
  },
  {
    cve: 'CVE-2026-28753',
    title: 'Injection in auth_http and XCLIENT',
    severity: 'medium',
    vulnerable: '0.6.27-1.29.6',
    notVulnerable: '1.29.7+, 1.28.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000160367',
    debianFixed: ['1.22.1-9+deb12u5'],
    pattern: 'mailResolver',
  },
  {
    cve: 'CVE-2026-28755',
    title: 'OCSP result bypass in stream',
    severity: 'medium',
    vulnerable: '1.27.2-1.29.6',
    notVulnerable: '1.29.7+, 1.28.3+',
    advisory: 'https://my.f5.com/manage/s/article/K000160368',
    debianFixed: ['1.22.1-9+deb12u5'],
    pattern: 'streamSslOcsp',
  },
  {
    cve: 'CVE-2026-1642',
    title: 'SSL upstream injection',
    severity: 'medium',
    vulnerable: '1.3.0-1.29.4',
    notVulnerable: '1.29.5+, 1.28.2+',
    advisory: 'https://my.f5.com/manage/s/article/K000159824',
    debianFixed: ['1.22.1-9+deb12u4'],
    pattern: 'sslUpstream',
  },
  {
    cve: 'CVE-2025-53859',
    title: 'Buffer overread in the ngx_mail_smtp_module',
    severity: 'low',
    vulnerable: '0.7.22-1.29.0',
    notVulnerable: '1.29.1+',
    advisory: 'https://my.f5.com/manage/s/article/K000152786',
    debianFixed: ['1.22.1-9+deb12u3'],
    pattern: 'smtpAuthNone',
  },
  {
    cve: 'CVE-2025-23419',
    title: 'SSL session reuse vulnerability',
    severity: 'medium',
    vulnerable: '1.11.4-1.27.3',
    notVulnerable: '1.27.4+, 1.26.3+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2025/NYEUJX7NCBCGJGXDFVXNMAAMJDFSE45G.html',
    debianFixed: ['1.22.1-9+deb12u1'],
    pattern: 'clientCertsBesideOtherServers',
  },
  {
    cve: 'CVE-2024-7347',
    title: 'Buffer overread in the ngx_http_mp4_module',
    severity: 'low',
    vulnerable: '1.5.13-1.27.0',
    notVulnerable: '1.27.1+, 1.26.2+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/UUOCLLONPR6244YQYU65PO5LB7JDYCWM.html',
    debianFixed: ['1.22.1-9+deb12u2'],
    pattern: 'mp4',
  },
  {
    cve: 'CVE-2024-32760',
    title: 'Buffer overwrite in HTTP/3',
    severity: 'medium',
    vulnerable: '1.25.0-1.25.5, 1.26.0',
    notVulnerable: '1.27.0+, 1.26.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/GMY32CSHFH6VFTN76HJNX7WNEX4RLHF6.html',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2024-31079',
    title: 'Stack overflow and use-after-free in HTTP/3',
    severity: 'medium',
    vulnerable: '1.25.0-1.25.5, 1.26.0',
    notVulnerable: '1.27.0+, 1.26.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/GMY32CSHFH6VFTN76HJNX7WNEX4RLHF6.html',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2024-35200',
    title: 'NULL pointer dereference in HTTP/3',
    severity: 'medium',
    vulnerable: '1.25.0-1.25.5, 1.26.0',
    notVulnerable: '1.27.0+, 1.26.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/GMY32CSHFH6VFTN76HJNX7WNEX4RLHF6.html',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2024-34161',
    title: 'Memory disclosure in HTTP/3',
    severity: 'medium',
    vulnerable: '1.25.0-1.25.5, 1.26.0',
    notVulnerable: '1.27.0+, 1.26.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/GMY32CSHFH6VFTN76HJNX7WNEX4RLHF6.html',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2024-24989',
    title: 'NULL pointer dereference in HTTP/3',
    severity: 'major',
    vulnerable: '1.25.3',
    notVulnerable: '1.25.4+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/NW6MNW34VZ6HDIHH5YFBIJYZJN7FGNAV.html',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2024-24990',
    title: 'Use-after-free in HTTP/3',
    severity: 'major',
    vulnerable: '1.25.0-1.25.3',
    notVulnerable: '1.25.4+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2024/NW6MNW34VZ6HDIHH5YFBIJYZJN7FGNAV.html',
    pattern: 'http3',
  },
  {
    cve: 'CVE-2022-41741',
    title: 'Memory corruption in the ngx_http_mp4_module',
    severity: 'medium',
    vulnerable: '1.1.3-1.23.1, 1.0.7-1.0.15',
    notVulnerable: '1.23.2+, 1.22.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2022/RBRRON6PYBJJM2XIAPQBFBVLR4Q6IHRA.html',
    pattern: 'mp4',
  },
  {
    cve: 'CVE-2022-41742',
    title: 'Memory disclosure in the ngx_http_mp4_module',
    severity: 'medium',
    vulnerable: '1.1.3-1.23.1, 1.0.7-1.0.15',
    notVulnerable: '1.23.2+, 1.22.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2022/RBRRON6PYBJJM2XIAPQBFBVLR4Q6IHRA.html',
    pattern: 'mp4',
  },
  {
    cve: 'CVE-2021-23017',
    title: '1-byte memory overwrite in resolver',
    severity: 'medium',
    vulnerable: '0.6.18-1.20.0',
    notVulnerable: '1.21.0+, 1.20.1+',
    advisory: 'https://mailman.nginx.org/pipermail/nginx-announce/2021/000300.html',
    debianFixed: ['1.18.0-6.1'],
    pattern: 'resolver',
  },
];
