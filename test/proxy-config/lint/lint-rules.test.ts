import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LINT_RULES } from '../../../proxy-config/core/lint/lint-rules.js';
import { RUNBOOKS } from '../../../proxy-config/core/lint/runbooks.js';

describe('LINT_RULES', () => {
  it('keeps its stable ids (renaming one breaks ignore annotations and JSON consumers)', () => {
    expect(LINT_RULES.map((rule) => rule.id)).toEqual([
      'forwarded-proto-missing',
      'request-id-missing',
      'upstream-keepalive-missing',
      'upstream-keepalive-headers',
      'keepalive-timeout-order',
      'proxy-pass-slash-mismatch',
      'proxy-pass-normalized',
      'cache-control-inverted',
      'timeout-not-nested',
      'body-size-inconsistent',
      'access-log-upstream-fields',
      'access-log-buffer-no-flush',
      'worker-rlimit-nofile-low',
      'server-tokens-on',
      'add-header-dropped',
      'proxy-header-dropped',
      'alias-traversal',
      'host-header-spoofable',
      'http-splitting',
      'server-name-conflict',
      'add-header-multiline',
      'add-header-content-type',
      'allow-without-deny',
      'return-bypasses-allow-deny',
      'status-page-exposed',
      'if-in-location',
      'try-files-without-open-file-cache',
      'proxy-pass-ssrf',
      'origin-regex-unsafe',
      'valid-referers-none',
      'regex-invalid',
      'regex-unanchored',
      'regex-redos',
      'resolver-external',
      'upstream-dns-stale',
      'upstream-resolve-refused',
      'merge-slashes-off',
      'proxy-buffering-off',
      'map-without-default',
      'error-log-off',
      'worker-processes-missing',
      'keepalive-requests-low',
      'default-server-missing',
      'tls-protocols-weak',
      'tls-ciphers-weak',
      'include-missing',
      'listen-duplicate',
      'upstream-undefined',
      'ssl-certificate-missing',
      'proxy-pass-uri-not-allowed',
      'directive-not-allowed',
      'events-missing',
      'ssl-directive-obsolete',
      'ssl-stapling-without-resolver',
      'proxy-set-header-response-only',
      'root-repeats-location',
      'default-server-duplicate',
      'variable-defined-twice',
      'proxy-set-header-duplicate',
      'proxy-upgrade-connection-missing',
      'proxy-upgrade-http10',
      'client-ip-spoofable',
      'directive-unknown',
      'real-ip-from-missing',
      'semicolon-missing',
      'regex-dot-unescaped',
      'directive-not-in-version',
      'listen-http2-deprecated',
      'keepalive-min-timeout-missing',
      'nginx-advisory',
    ]);
  });

  it('gives every rule a title, a why, a fix, and a runbook from the one runbook table', () => {
    const runbooks = new Set<string>(Object.values(RUNBOOKS));
    for (const rule of LINT_RULES) {
      expect(rule.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(['error', 'warning', 'note']).toContain(rule.severity);
      for (const text of [rule.title, rule.message, rule.fix]) expect(text.length).toBeGreaterThan(10);
      if (rule.runbook !== null) expect(runbooks).toContain(rule.runbook);
    }
    for (const runbook of runbooks) expect(runbook).toMatch(/^runbooks\/[a-z0-9-]+\.md#[a-z0-9-]+$/);
  });

  it('says in docs/lint.md why each rule has its severity', () => {
    const page = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../docs/lint.md'), 'utf8');
    const start = page.indexOf('## Severity');
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| (error|warning|note)(?::| for) \S/gm)].map(
      (m) => [m[1], m[2]],
    );
    expect(rows).toEqual(LINT_RULES.map((rule) => [rule.id, rule.severity]));
  });

  it('lists every rule in the docs/lint.md catalogue with its severity', () => {
    const page = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../docs/lint.md'), 'utf8');
    const start = page.indexOf('## Rules');
    const end = page.indexOf('\n## ', start + 1);
    const section = page.slice(start, end === -1 ? undefined : end);
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| (error|warning|note) \|/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(rows).toEqual(LINT_RULES.map((rule) => [rule.id, rule.severity]));
  });
});
