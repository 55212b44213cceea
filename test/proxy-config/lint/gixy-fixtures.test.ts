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

const PLUGIN_RULES: Record<string, string> = {
  add_header_content_type: 'add-header-content-type',
  add_header_multiline: 'add-header-multiline',
  add_header_redefinition: 'add-header-dropped',
  alias_traversal: 'alias-traversal',
  allow_without_deny: 'allow-without-deny',
  host_spoofing: 'host-header-spoofable',
  http_splitting: 'http-splitting',
  if_is_evil: 'if-in-location',
  origins: 'origin-regex-unsafe',
  resolver_external: 'resolver-external',
  ssrf: 'proxy-pass-ssrf',
  valid_referers: 'valid-referers-none',
  version_disclosure: 'server-tokens-on',
};

/** Fixtures nginx itself refuses wherever they are included (checked below with the real nginx -t). */
const REFUSED_BY_NGINX: Record<string, string> = {
  'add_header_redefinition/non_block_fp.conf': '`server "some";`: a block directive without its block',
  'origins/origin_wo_slash.conf': '`if` directly inside `http`',
};

/**
 * False-positive fixtures where gixy is wrong and the rule rightly fires. nginx copies a named
 * capture into a redirecting rewrite's target unescaped (only numbered captures are escaped), so
 * `rewrite ^/proxy/(a|b)/(?<path>\W*)$ http://storage/$path redirect;` sends a raw CR LF in
 * Location: the live test below shows it.
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
      try {
        const report = await lintNginxConfigFiles(join(GIXY_DIR, fixture.name));
        return { ...fixture, fired: report.findings.some((f) => f.ruleId === rule) };
      } catch (error) {
        return { ...fixture, fired: undefined, refusal: (error as Error).message };
      }
    }),
  );
});

describe("gixy's plugin fixtures", () => {
  it('has a rule for every plugin whose fixtures are here', () => {
    expect(Object.keys(PLUGIN_RULES).sort()).toEqual([...new Set(FIXTURES.map((f) => f.plugin))].sort());
  });

  it('lints every fixture except those nginx refuses too', () => {
    const refused = outcomes.filter((o) => o.fired === undefined).map((o) => o.name);
    expect(refused.sort()).toEqual(Object.keys(REFUSED_BY_NGINX).sort());
  });

  it('catches at least 90 % of the problem fixtures with the matching rule', () => {
    const problems = outcomes.filter((o) => !o.fp);
    const caught = problems.filter((o) => o.fired === true);
    const missed = problems.filter((o) => o.fired !== true).map((o) => o.name);
    const rate = caught.length / problems.length;
    console.log(
      `gixy plugin fixtures: ${caught.length} of ${problems.length} problem fixtures caught (${(100 * rate).toFixed(1)} %); missed: ${missed.join(', ')}`,
    );
    expect(missed.sort()).toEqual(['origins/origin_https.conf', 'origins/origin_wo_slash.conf']);
    expect(rate).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps the matching rule quiet on the false-positive fixtures (but where gixy is wrong)', () => {
    const fps = outcomes.filter((o) => o.fp && o.fired !== undefined);
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
