import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

interface JsonFinding {
  ruleId: string;
  severity: string;
  file: string;
  line: number;
  what: string;
  contexts?: string[];
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-lint-include-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes files under a fresh directory; returns their paths by name. */
async function layout(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

async function lint(args: string[]): Promise<{ code: number; findings: JsonFinding[]; stderr: string }> {
  const { code, stdout, stderr } = await runCli(['config', 'lint', '--json', ...args]);
  return {
    code,
    stderr,
    findings: code === 2 ? [] : (JSON.parse(stdout) as { findings: JsonFinding[] }).findings,
  };
}

describe('one finding per place', () => {
  it('reports a snippet included into two servers once, listing both servers', async () => {
    const root = await layout('twice', {
      'nginx.conf': 'events {}\nhttp {\n  include sites/*.conf;\n}\n',
      'sites/a.conf':
        'server {\n  listen 80;\n  server_name a.example;\n  include snippets/static.conf;\n}\n',
      'sites/b.conf':
        'server {\n  listen 80;\n  server_name b.example;\n  include snippets/static.conf;\n}\n',
      'snippets/static.conf': 'location /static {\n  alias /srv/static/;\n}\n',
    });
    const { findings } = await lint([join(root, 'nginx.conf')]);
    const alias = findings.filter((f) => f.ruleId === 'alias-traversal');
    expect(alias).toHaveLength(1);
    expect(alias[0]?.file).toBe(join(root, 'snippets/static.conf'));
    expect(alias[0]?.contexts).toEqual([
      `server a.example (${join(root, 'sites/a.conf')}:1)`,
      `server b.example (${join(root, 'sites/b.conf')}:1)`,
    ]);
    const { stdout } = await runCli(['config', 'lint', '--quiet', join(root, 'nginx.conf')]);
    expect(stdout).toContain('(included in server a.example');
  });
});
