import { childrenNamed, listLocations, locationMatch, walkDirectives } from '../../nginx-config/query.js';
import type { LintRule, RuleHit } from '../types.js';

/** gixy's alias_traversal: `location /static { alias /srv/static/; }` serves /static../secret. */
export const ALIAS_TRAVERSAL: LintRule = {
  id: 'alias-traversal',
  severity: 'error',
  title: 'alias path traversal',
  message:
    'A prefix location without a trailing slash whose alias ends with one lets /static../ map to the parent of the alias directory: files next to it (configs, keys, .git) can be read.',
  fix: 'end both with a slash: location /static/ { alias /srv/static/; } (or use root)',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block } of listLocations(config)) {
      const { modifier, path } = locationMatch(block);
      if ((modifier !== '' && modifier !== '^~') || path.endsWith('/')) continue;
      for (const alias of childrenNamed(block, 'alias'))
        if ((alias.args[0] ?? '').endsWith('/'))
          hits.push({
            file: alias.file,
            line: alias.line,
            what: `location ${path} with alias ${alias.args[0] ?? ''} serves ${path}../ from the parent directory`,
          });
    }
    return hits;
  },
};

/** gixy's host_spoofing: $http_host is whatever the client sent. */
export const HOST_HEADER_SPOOFABLE: LintRule = {
  id: 'host-header-spoofable',
  severity: 'warning',
  title: 'Host forwarded from $http_host',
  message:
    '$http_host is the raw client Host header, forwarded even when it matches no server_name (default server): the app builds links, password-reset mails and cache keys from an attacker-chosen host.',
  fix: 'proxy_set_header Host $host;',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (
        d.name === 'proxy_set_header' &&
        (d.args[0] ?? '').toLowerCase() === 'host' &&
        /\$\{?http_host\b/.test(d.args[1] ?? '')
      )
        hits.push({ file: d.file, line: d.line, what: `proxy_set_header Host ${d.args[1] ?? ''}` });
    });
    return hits;
  },
};

const DECODED_URI = /\$\{?(uri|document_uri)\b/;
const HEADER_WRITERS = new Set(['add_header', 'proxy_set_header', 'return', 'proxy_pass']);

/** gixy's http_splitting: $uri is percent-decoded, so %0d%0a in a request becomes a real line break. */
export const HTTP_SPLITTING: LintRule = {
  id: 'http-splitting',
  severity: 'error',
  title: 'decoded $uri written into a header or upstream request',
  message:
    '$uri and $document_uri are percent-decoded: a request for /x%0d%0aSet-Cookie:a=b writes a line break into the response header or the upstream request (header injection, response splitting).',
  fix: 'use $request_uri (kept encoded) in return/add_header/proxy_set_header/proxy_pass',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (HEADER_WRITERS.has(d.name) && d.args.some((a) => DECODED_URI.test(a)))
        hits.push({ file: d.file, line: d.line, what: `${d.name} ${d.args.join(' ')}` });
    });
    return hits;
  },
};
