import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINT_RULES } from '../../proxy-config/core/lint/lint-rules.js';
import { runCli } from '../support/run-cli.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const FIXTURES = join(import.meta.dirname, '../fixtures');

/**
 * The official SARIF 2.1.0 schema (test/fixtures/sarif/README.md says where it comes from). It is
 * written in JSON Schema draft-04, which ajv 8 reads once the draft-04 `id` is spelled `$id`: the
 * schema uses no keyword whose meaning changed after draft-04 (no exclusiveMinimum/Maximum).
 */
function sarifValidator() {
  const schema = JSON.parse(readFileSync(join(FIXTURES, 'sarif/sarif-schema-2.1.0.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
  const { $schema: _draft, id, ...rest } = schema;
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  return ajv.compile({ ...rest, $id: id as string });
}

interface SarifLog {
  version: string;
  runs: Array<{
    tool: {
      driver: {
        name: string;
        rules: Array<{
          id: string;
          shortDescription: { text: string };
          fullDescription: { text: string };
          help: { text: string };
          helpUri?: string;
          defaultConfiguration: { level: string };
        }>;
      };
    };
    results: Array<{
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: Array<{
        physicalLocation: {
          artifactLocation: { uri: string; uriBaseId?: string };
          region: { startLine: number };
        };
      }>;
    }>;
  }>;
}

describe('config lint --format sarif', () => {
  it('is a SARIF 2.1.0 log the official schema accepts, with rules and located results', async () => {
    const file = join(FIXTURES, 'lint/tls-protocols-weak.fail.conf');
    const { code, stdout } = await runCli(['config', 'lint', file, '--format', 'sarif']);
    expect(code).toBe(1);
    const log = JSON.parse(stdout) as SarifLog;
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);

    const run = log.runs[0];
    expect(log.version).toBe('2.1.0');
    expect(run?.tool.driver.name).toBe('proxyops');
    expect(run?.tool.driver.rules.map((r) => r.id)).toEqual(LINT_RULES.map((r) => r.id));
    const rule = run?.tool.driver.rules.find((r) => r.id === 'tls-protocols-weak');
    expect(rule).toMatchObject({
      shortDescription: { text: 'SSLv3, TLSv1 or TLSv1.1 enabled' },
      defaultConfiguration: { level: 'error' },
      help: { text: expect.stringContaining('Fix: ssl_protocols TLSv1.2 TLSv1.3;') },
    });
    expect(rule?.fullDescription.text).toContain('POODLE');

    // The fixture's one `# expect` line, as a physical location relative to the working directory.
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('# expect')) + 1;
    expect(run?.results).toEqual([
      {
        ruleId: 'tls-protocols-weak',
        ruleIndex: LINT_RULES.findIndex((r) => r.id === 'tls-protocols-weak'),
        level: 'error',
        message: { text: 'ssl_protocols enables SSLv3, TLSv1, TLSv1.1' },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: relative(process.cwd(), file), uriBaseId: 'SRCROOT', index: 0 },
              region: { startLine: line },
            },
          },
        ],
      },
    ]);
  });

  it('links each rule with a runbook to that runbook as shipped, and warns at level warning', async () => {
    const { stdout } = await runCli([
      'config',
      'lint',
      join(FIXTURES, 'lint/access-log-buffer-no-flush.fail.conf'),
      '--format',
      'sarif',
    ]);
    const log = JSON.parse(stdout) as SarifLog;
    for (const rule of LINT_RULES) {
      const described = log.runs[0]?.tool.driver.rules.find((r) => r.id === rule.id);
      if (!rule.runbook) {
        expect(described?.helpUri).toBeUndefined();
        continue;
      }
      const uri = new URL(described?.helpUri ?? '');
      expect(uri.protocol).toBe('file:');
      expect(uri.hash).toBe(`#${rule.runbook.split('#')[1] ?? ''}`);
      expect(existsSync(fileURLToPath(uri)), uri.href).toBe(true);
    }
    const results = log.runs[0]?.results ?? [];
    expect(results.length).toBeGreaterThan(0);
    for (const result of results)
      expect([result.ruleId, result.level]).toEqual(['access-log-buffer-no-flush', 'warning']);
  });

  it('validates with no findings too', async () => {
    const { code, stdout } = await runCli([
      'config',
      'lint',
      join(FIXTURES, 'lint/tls-protocols-weak.pass.conf'),
      '--format',
      'sarif',
    ]);
    expect(code).toBe(0);
    const log = JSON.parse(stdout) as SarifLog;
    expect(sarifValidator()(log)).toBe(true);
    expect(log.runs[0]?.results).toEqual([]);
  });
});

describe('config lint output options', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-lint-output-'));
    file = join(dir, 'site.conf');
    // Three findings of one rule, one of another.
    await writeFile(
      file,
      [
        'server {',
        '  listen 8080;',
        '  location /a/ { proxy_pass http://127.0.0.1:9000; proxy_buffering off; }',
        '  location /b/ { proxy_pass http://127.0.0.1:9000; proxy_buffering off; }',
        '  location /c/ { proxy_pass http://127.0.0.1:9000; proxy_buffering off; }',
        '  merge_slashes off;',
        '}',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const lintJson = async (args: string[]) =>
    (
      JSON.parse((await runCli(['config', 'lint', file, ...args])).stdout) as {
        findings: Array<{ ruleId: string; line: number }>;
      }
    ).findings;

  it('--json is --format json', async () => {
    // A named version: the nginx found here (running master or none) is another test file's to change.
    const alias = await runCli(['config', 'lint', file, '--json', '--nginx-version', '1.22.1']);
    const format = await runCli(['config', 'lint', file, '--format', 'json', '--nginx-version', '1.22.1']);
    expect(alias.stdout).toBe(format.stdout);
    expect(JSON.parse(alias.stdout)).toHaveProperty('findings');
  });

  it('refuses an unknown format, and --json with another --format, in one proxyops: line', async () => {
    const unknown = await runCli(['config', 'lint', file, '--format', 'xml']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Allowed choices are text, json, sarif/);
    const both = await runCli(['config', 'lint', file, '--json', '--format', 'sarif']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/cannot be used with/);
    expect(both.stdout).toBe('');
  });

  it('groups repeated findings of one rule under one header with their places', async () => {
    const { stdout } = await runCli(['config', 'lint', file, '--format', 'text']);
    const lines = stdout.split('\n');
    // Outside the working directory, paths are shown whole.
    expect(relative(process.cwd(), file)).toMatch(/^\.\./);
    const header = lines.findIndex((l) => l.includes('proxy-buffering-off') && l.includes('(3 places)'));
    expect(header).toBeGreaterThanOrEqual(0);
    expect(lines.slice(header + 1, header + 4)).toEqual([
      `  ${file}:3  proxy_buffering off`,
      `  ${file}:4  proxy_buffering off`,
      `  ${file}:5  proxy_buffering off`,
    ]);
    expect(stdout.match(/why: Without buffering/g)).toHaveLength(1);
    expect(stdout).toContain(`${file}:6  warning  merge-slashes-off  merge_slashes off`);
    expect(lines.at(-2)).toMatch(/^\d+ errors, \d+ warnings(, \d+ notes?)? in 1 file$/);
  });

  it('--quiet prints the findings only, one line each', async () => {
    const { stdout, code } = await runCli(['config', 'lint', file, '--quiet']);
    expect(code).toBe(0); // warnings only (a bare proxy_pass address is a warning since issue 26)
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength((await lintJson(['--json'])).length);
    for (const line of lines)
      expect(line).toMatch(/^\S+:\d+ {2}(error {2}|warning|note {3}) {2}[a-z0-9-]+ {2}\S/);
    expect(stdout).not.toMatch(/why:|fix:|warnings? in/);
  });

  it('--format sarif gives a file outside the working directory as an absolute file: URI', async () => {
    const { stdout } = await runCli(['config', 'lint', file, '--format', 'sarif']);
    const log = JSON.parse(stdout) as SarifLog;
    expect(sarifValidator()(log)).toBe(true);
    const locations = (log.runs[0]?.results ?? []).map((r) => r.locations[0]?.physicalLocation);
    expect(locations.length).toBeGreaterThan(3);
    for (const location of locations) {
      expect(location?.artifactLocation.uri).toBe(pathToFileURL(file).href);
      expect(location?.artifactLocation.uriBaseId).toBeUndefined();
    }
  });

  describe('# proxyops: ignore', () => {
    const run = async (text: string) => {
      await writeFile(file, text);
      const { stdout } = await runCli(['config', 'lint', file, '--json']);
      return JSON.parse(stdout) as {
        findings: Array<{ ruleId: string; line: number }>;
        counts: { ignored: number };
      };
    };
    const buffering = (report: { findings: Array<{ ruleId: string; line: number }> }) =>
      report.findings.filter((f) => f.ruleId === 'proxy-buffering-off').map((f) => f.line);

    it('after a directive on its line silences that directive only', async () => {
      const report = await run(
        [
          'server {',
          '  location /a/ {',
          '    proxy_buffering off;  # proxyops: ignore proxy-buffering-off',
          '    proxy_buffering off;',
          '  }',
          '}',
          '',
        ].join('\n'),
      );
      expect(buffering(report)).toEqual([4]);
      expect(report.counts.ignored).toBe(1);
    });

    it('on its own line, or after a block opens, silences the enclosing block', async () => {
      const report = await run(
        [
          'server {',
          '  location /a/ {',
          '    # proxyops: ignore proxy-buffering-off',
          '    proxy_buffering off;',
          '  }',
          '  location /b/ {  # proxyops: ignore proxy-buffering-off',
          '    proxy_buffering off;',
          '  }',
          '  location /c/ {',
          '    proxy_buffering off;',
          '  }',
          '}',
          '',
        ].join('\n'),
      );
      expect(buffering(report)).toEqual([10]);
      expect(report.counts.ignored).toBe(2);
    });

    it('after a block’s closing brace silences that block, and works inside a map body', async () => {
      const report = await run(
        [
          'map $a $b {  # proxyops: ignore map-without-default',
          '  x 1;',
          '  y 2;',
          '}',
          'server {',
          '  location /a/ {',
          '    proxy_buffering off;',
          '  }  # proxyops: ignore proxy-buffering-off',
          '  location /b/ {',
          '    proxy_buffering off;',
          '  }',
          '}',
          '',
        ].join('\n'),
      );
      expect(buffering(report)).toEqual([10]);
      expect(report.findings.filter((f) => f.ruleId === 'map-without-default')).toEqual([]);
      expect(report.counts.ignored).toBe(2);
    });

    it('names only the rules it lists', async () => {
      const report = await run('server {\n  merge_slashes off;  # proxyops: ignore proxy-buffering-off\n}\n');
      expect(report.findings.map((f) => f.ruleId)).toContain('merge-slashes-off');
      expect(report.counts.ignored).toBe(0);
    });
  });
});
