import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { startLiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { FIXTURE_DIR } from './fixtures.js';

// gixy's plugin fixtures (test/fixtures/lint/gixy/SOURCES.md): each problem fixture should be
// caught by the rule matching its plugin, which must stay quiet on the plugin's *_fp.conf fixtures.
const GIXY_DIR = join(FIXTURE_DIR, 'gixy');

/** The rule matching each plugin; null where we have none, on purpose (see NO_RULE). */
const PLUGIN_RULES: Record<string, string | null> = {
  add_header_content_type: 'add-header-content-type',
  add_header_multiline: 'add-header-multiline',
  add_header_redefinition: 'add-header-dropped',
  alias_traversal: 'alias-traversal',
  allow_without_deny: 'allow-without-deny',
  default_server_flag: 'default-server-missing',
  error_log_off: 'error-log-off',
  hash_without_default: 'map-without-default',
  host_spoofing: 'host-header-spoofable',
  http_splitting: 'http-splitting',
  if_is_evil: 'if-in-location',
  invalid_regex: 'regex-invalid',
  low_keepalive_requests: 'keepalive-requests-low',
  merge_slashes_on: null,
  missing_worker_processes: 'worker-processes-missing',
  origins: 'origin-regex-unsafe',
  proxy_buffering_off: 'proxy-buffering-off',
  proxy_pass_normalized: 'proxy-pass-normalized',
  resolver_external: 'resolver-external',
  return_bypasses_allow_deny: 'return-bypasses-allow-deny',
  ssrf: 'proxy-pass-ssrf',
  stale_dns_cache: 'upstream-dns-stale',
  status_page_exposed: 'status-page-exposed',
  try_files_is_evil_too: 'try-files-without-open-file-cache',
  unanchored_regex: 'regex-unanchored',
  valid_referers: 'valid-referers-none',
  version_disclosure: 'server-tokens-on',
  worker_rlimit_nofile_vs_connections: 'worker-rlimit-nofile-low',
};

/**
 * Where a problem fixture's mistake is one nginx -t refuses, the rule saying so catches it: a
 * proxy_pass with a URI part inside `if` is proxy_pass_normalized's case for gixy and a refusal for
 * nginx. These rules too must stay quiet on the plugin's false-positive fixtures.
 */
const REFUSAL_RULES: Record<string, string[]> = {
  proxy_pass_normalized: ['proxy-pass-uri-not-allowed'],
};

/**
 * merge_slashes_on reports nginx's default (`merge_slashes on`). We hold the opposite: with it on,
 * //admin still meets `location /admin { deny all; }`; turning it off is what lets a path slip past
 * a prefix location to an upstream that merges slashes itself (merge-slashes-off).
 */
const NO_RULE = ['merge_slashes_on'];

/** Fixtures nginx itself refuses wherever they are included (checked below with the real nginx -t). */
const REFUSED_BY_NGINX: Record<string, string> = {
  'add_header_redefinition/non_block_fp.conf': '`server "some";`: a block directive without its block',
  'allow_without_deny/include_and_deny_fp.conf': 'starts with `// Options: {...}`, which is no nginx comment',
  'http_splitting/mapped_value_with_set.conf': '`map` (http only) and `set` (server, location) at one level',
  'missing_worker_processes/missing_directive_fp.conf': '`worker_processes` inside `events`',
  'origins/map_origin_allowlist_fp.conf': 'an unquoted regex with `{1,5}`: nginx reads `{` as a block',
  'origins/origin_wo_slash.conf': '`if` directly inside `http`',
  'proxy_pass_normalized/missing_variable_in_limit_except.conf': '`rewrite` inside `limit_except`',
  'proxy_pass_normalized/missing_variable_in_limit_except_fp.conf': '`rewrite` inside `limit_except`',
  'return_bypasses_allow_deny/same_next_level_fp.conf': '`try_files` inside `if`',
  'stale_dns_cache/block_with_include_with_if.conf': 'an `nginx -T` dump: `if` directly inside `http`',
  'worker_rlimit_nofile_vs_connections/worker_rlimit_nofile_vs_connections_fp.conf':
    '`worker_connections` outside `events`',
  'worker_rlimit_nofile_vs_connections/worker_rlimit_nofile_vs_connections_missing.conf':
    '`worker_connections` outside `events`',
  'worker_rlimit_nofile_vs_connections/worker_rlimit_nofile_vs_connections_too_low.conf':
    '`worker_connections` outside `events`',
};

/** Of those, the ones lint cannot read either (syntax): the rest are linted, the refusal a finding. */
const UNREADABLE: readonly string[] = [
  'add_header_redefinition/non_block_fp.conf',
  'allow_without_deny/include_and_deny_fp.conf',
  'origins/map_origin_allowlist_fp.conf',
];

/**
 * Problem fixtures nginx refuses whose mistake the plugin's rule cannot see: nginx never reads a
 * worker_connections outside events, so there is no connection count to compare the limit with.
 * directive-not-allowed reports the refusal.
 */
const REFUSED_AND_MISSED: readonly string[] = [
  // Judged as nginx 1.22, which refuses `server … resolve` (directive-not-in-version): the missing
  // resolver is upstream-resolve-refused's on 1.27.3 and later.
  'stale_dns_cache/block_with_include_with_if.conf',
  'worker_rlimit_nofile_vs_connections/worker_rlimit_nofile_vs_connections_missing.conf',
  'worker_rlimit_nofile_vs_connections/worker_rlimit_nofile_vs_connections_too_low.conf',
];

/**
 * Problem fixtures that nginx accepts and that we leave alone on purpose: gixy's plugin options
 * (domains, https_only), which have no counterpart here, and cases where the config is safe.
 */
const NOT_A_DEFECT: Record<string, string> = {
  'http_splitting/mapped_value.conf':
    '$host cannot hold CR or LF (nginx answers 400 to such a Host), so neither can $1',
  'merge_slashes_on/config.conf': 'merge_slashes on is the safe default (see NO_RULE)',
  'origins/more_origins_15.conf':
    "gixy's `domains` option: the regex is safe for yandex.ru, which the option does not list",
  'origins/origin_https.conf':
    "gixy's `https_only` option: the regex accepts http:// origins of the right host",
  'proxy_pass_normalized/proxy_pass_socket_with_path.conf':
    'a URI part that maps / to /test/ is the point of the config, not a mistake',
  'proxy_pass_normalized/variable.conf': 'with variables nginx passes the URI as written: nothing is decoded',
  'status_page_exposed/status_page_exposed_deny_only.conf': '`deny all` shows the page to nobody',
  'status_page_exposed/status_page_exposed_unix_and_tcp.conf':
    'a unix socket and 127.0.0.1 only: loopback, as the fix advises',
};

/**
 * False-positive fixtures where gixy is wrong and the rule rightly fires, or where we cannot know
 * what gixy knows. nginx copies a named capture into a redirecting rewrite's target unescaped (only
 * numbered captures are escaped), so `rewrite ^/proxy/(a|b)/(?<path>\W*)$ http://storage/$path
 * redirect;` sends a raw CR LF in Location: the live test below shows it.
 */
const GIXY_MISJUDGED: Record<string, string> = {
  'http_splitting/rewrite_extract_fp.conf': 'a named capture reaches Location unescaped',
};

interface Outcome {
  name: string;
  plugin: string;
  fp: boolean;
  /** The rule matching the plugin fired; undefined when lint refused the file. */
  fired: boolean | undefined;
  /** directive-not-allowed fired (nginx's "not allowed here"). */
  notAllowed?: boolean;
  refusal?: string;
}

const FIXTURES = readdirSync(GIXY_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(join(GIXY_DIR, dir.name))
      .filter((file) => file.endsWith('.conf'))
      .sort()
      .map((file) => ({ plugin: dir.name, name: `${dir.name}/${file}`, fp: file.endsWith('_fp.conf') })),
  );

let outcomes: Outcome[] = [];

beforeAll(async () => {
  outcomes = await Promise.all(
    FIXTURES.map(async (fixture) => {
      const rule = PLUGIN_RULES[fixture.plugin];
      if (rule === null) return { ...fixture, fired: false };
      const rules = [rule, ...(REFUSAL_RULES[fixture.plugin] ?? [])];
      try {
        const report = await lintNginxConfigFiles(join(GIXY_DIR, fixture.name));
        return {
          ...fixture,
          fired: report.findings.some((f) => rules.includes(f.ruleId)),
          notAllowed: report.findings.some((f) => f.ruleId === 'directive-not-allowed'),
        };
      } catch (error) {
        return { ...fixture, fired: undefined, refusal: (error as Error).message };
      }
    }),
  );
});

describe("gixy's plugin fixtures", () => {
  it('has a rule for every plugin whose fixtures are here (but where we disagree)', () => {
    expect(Object.keys(PLUGIN_RULES).sort()).toEqual([...new Set(FIXTURES.map((f) => f.plugin))].sort());
    expect(Object.keys(PLUGIN_RULES).filter((p) => PLUGIN_RULES[p] === null)).toEqual(NO_RULE);
    expect(FIXTURES.filter((f) => !f.fp)).toHaveLength(146);
  });

  it('lints every fixture but those it cannot read, reporting where nginx says "not allowed here"', () => {
    const refused = outcomes.filter((o) => o.fired === undefined).map((o) => `${o.name}: ${o.refusal}`);
    expect(refused.map((r) => r.split(': ')[0]).sort()).toEqual([...UNREADABLE].sort());
    const read = Object.keys(REFUSED_BY_NGINX).filter((name) => !UNREADABLE.includes(name));
    const reported = outcomes.filter((o) => o.notAllowed).map((o) => o.name);
    expect(reported.sort()).toEqual(read.sort());
  });

  it('catches the problem fixtures with the matching rule, each miss refused by nginx or explained', () => {
    const problems = outcomes.filter((o) => !o.fp);
    const caught = problems.filter((o) => o.fired === true);
    const missed = problems.filter((o) => o.fired !== true).map((o) => o.name);
    const plugins = [...new Set(problems.map((o) => o.plugin))].map((plugin) => {
      const own = problems.filter((o) => o.plugin === plugin);
      return `${plugin} ${own.filter((o) => o.fired === true).length}/${own.length}`;
    });
    const accepted = problems.filter((o) => !(o.name in REFUSED_BY_NGINX));
    const caughtAccepted = accepted.filter((o) => o.fired === true).length;
    console.log(
      `gixy plugin fixtures: ${caught.length} of ${problems.length} problem fixtures caught (${((100 * caught.length) / problems.length).toFixed(1)} %); ` +
        `of the ${accepted.length} nginx accepts: ${caughtAccepted} (${((100 * caughtAccepted) / accepted.length).toFixed(1)} %)\n${plugins.join(', ')}\nmissed: ${missed.join(', ')}`,
    );
    expect(missed.sort()).toEqual([...Object.keys(NOT_A_DEFECT), ...REFUSED_AND_MISSED].sort());
    expect(caught.length).toBeGreaterThanOrEqual(135);
  });

  it('keeps the matching rule quiet on the false-positive fixtures (but where gixy is wrong)', () => {
    // A plugin with no rule here (NO_RULE) has nothing that could fire: its fixtures would pass unread.
    const fps = outcomes.filter((o) => o.fp && o.fired !== undefined && PLUGIN_RULES[o.plugin] !== null);
    expect(fps).toHaveLength(115);
    const noisy = fps.filter((o) => o.fired).map((o) => o.name);
    expect(noisy.sort()).toEqual(Object.keys(GIXY_MISJUDGED).sort());
    console.log(`gixy false-positive fixtures: ${fps.length - noisy.length} of ${fps.length} quiet`);
  });
});

describe('what nginx does with the fixtures where we part from gixy', () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-gixy-'));
    await chmod(prefix, 0o755);
  });
  afterAll(() => rm(prefix, { recursive: true, force: true }));

  it.each(Object.keys(REFUSED_BY_NGINX))('nginx -t refuses %s wherever it is included', async (name) => {
    const fixture = join(GIXY_DIR, name);
    const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((t) => `${t}_temp_path ${join(prefix, t)};`)
      .join(' ');
    const top = `pid ${join(prefix, 'nginx.pid')}; error_log ${join(prefix, 'error.log')};`;
    const placements = readFileSync(fixture, 'utf8').match(/^\s*http\s*\{/m)
      ? [`${top} events {} include ${fixture};`]
      : [
          `include ${fixture}; http { ${temps} }`,
          `http { ${temps} include ${fixture}; }`,
          `http { ${temps} server { listen 127.0.0.1:1; include ${fixture}; } }`,
          `http { ${temps} server { listen 127.0.0.1:1; location / { include ${fixture}; } } }`,
        ].map((http) => `${top} events {} ${http}`);
    for (const text of placements) {
      const confPath = join(prefix, 'nginx.conf');
      await writeFile(confPath, text);
      const output = await testNginxConfig({
        confPath,
        prefix,
        startupErrorLog: join(prefix, 'error.log'),
      }).then(
        (out) => out,
        (error: Error) => error.message,
      );
      expect(output, text).toMatch(/\[emerg\]/);
    }
  });

  it('rewrite_extract_fp.conf: the named capture reaches Location with a raw CR LF', async () => {
    const rewrite = readFileSync(join(GIXY_DIR, 'http_splitting/rewrite_extract_fp.conf'), 'utf8');
    const port = await freePort();
    const nginx = await startLiveNginx(`server { listen 127.0.0.1:${port}; ${rewrite} }`);
    try {
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1' });
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolve(data.split('\r\n\r\n')[0] ?? ''));
        socket.write('GET /proxy/a/%0d%0a%20-- HTTP/1.0\r\n\r\n');
      });
      expect(head).toMatch(/^HTTP\/1\.1 302/);
      // The captured CR LF ends the Location header early: " --" arrives as a folded line.
      expect(head).toContain('\r\nLocation: http://storage/\r\n --');
    } finally {
      await nginx.stop();
    }
  });
});
