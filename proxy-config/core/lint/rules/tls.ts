import { walkDirectives } from '../../nginx-config/query.js';
import type { LintRule, RuleHit } from '../types.js';

/** Protocols with published practical attacks (POODLE, BEAST) and no AEAD ciphers. */
const WEAK_PROTOCOLS = new Set(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1']);

/** OpenSSL cipher-string words naming broken or unauthenticated suites. */
const WEAK_CIPHER_WORDS = new Set([
  'RC4',
  'DES',
  '3DES',
  'CBC3',
  'MD5',
  'NULL',
  'ENULL',
  'ANULL',
  'EXP',
  'EXPORT',
  'EXPORT40',
  'EXPORT56',
  'LOW',
  'ADH',
  'AECDH',
]);

/** gixy-ng's weak_ssl_tls, protocols: ssl_protocols (and proxy_/grpc_ssl_protocols towards upstreams). */
export const TLS_PROTOCOLS_WEAK: LintRule = {
  id: 'tls-protocols-weak',
  severity: 'error',
  title: 'SSLv3, TLSv1 or TLSv1.1 enabled',
  message:
    'SSLv3, TLS 1.0 and 1.1 are deprecated (RFC 8996) and open to POODLE and BEAST-style downgrade attacks; every client of the last decade speaks TLS 1.2. Scanners and PCI DSS fail a server that still offers them.',
  fix: 'ssl_protocols TLSv1.2 TLSv1.3;',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (!/^(?:|proxy_|grpc_|uwsgi_)ssl_protocols$/.test(d.name)) return;
      const weak = d.args.filter((p) => WEAK_PROTOCOLS.has(p));
      if (weak.length > 0)
        hits.push({ file: d.file, line: d.line, what: `${d.name} enables ${weak.join(', ')}` });
    });
    return hits;
  },
};

/** The suites of a cipher string that stay enabled and name a weak algorithm. */
function weakCiphers(cipherString: string): string[] {
  const tokens = cipherString.split(/[:,\s]+/).filter(Boolean);
  const removed = new Set(
    tokens.filter((t) => t.startsWith('!') || t.startsWith('-')).map((t) => t.slice(1).toUpperCase()),
  );
  return tokens.filter((token) => {
    if (token.startsWith('!') || token.startsWith('-')) return false;
    const name = token.replace(/^\+/, '').toUpperCase();
    if (removed.has(name)) return false;
    return name.split(/[-+]/).some((word) => WEAK_CIPHER_WORDS.has(word) && !removed.has(word));
  });
}

/** gixy-ng's weak_ssl_tls, ciphers: RC4, DES/3DES, MD5, NULL, EXPORT and anonymous suites. */
export const TLS_CIPHERS_WEAK: LintRule = {
  id: 'tls-ciphers-weak',
  severity: 'error',
  title: 'weak TLS cipher suites enabled',
  message:
    'RC4 and MD5 are broken, DES and 3DES fall to SWEET32, EXPORT suites to FREAK/Logjam, NULL suites do not encrypt and anonymous (aNULL/ADH) ones do not authenticate the server: a client that offers one of them can be talked down to it.',
  fix: "ssl_ciphers HIGH:!aNULL:!MD5; (nginx's default) or Mozilla's intermediate list",
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (!/^(?:|proxy_|grpc_|uwsgi_)ssl_ciphers$/.test(d.name)) return;
      const weak = weakCiphers(d.args.join(':'));
      if (weak.length > 0)
        hits.push({ file: d.file, line: d.line, what: `${d.name} enables ${weak.join(', ')}` });
    });
    return hits;
  },
};
