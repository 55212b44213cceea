import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { FIXTURE_DIR, FIXTURE_FILES, FIXTURES, LATER_NGINX_ONLY, REFUSED_BY_NGINX } from './fixtures.js';

const refused = new Set(
  FIXTURES.filter((f) => f.kind === 'fail' && REFUSED_BY_NGINX.has(f.ruleId)).map((f) => f.name),
);

// Every fixture, passing and failing, is a config the real nginx accepts (the rules catch
// mistakes nginx -t lets through), except the failing fixtures of the rules that catch what
// nginx -t refuses: the real nginx -t must refuse those, as lint claims.
describe('lint fixtures under the real nginx -t', () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-lint-fixtures-'));
    // Workers run as `nobody` when the master is root: they must be able to traverse the prefix.
    await chmod(prefix, 0o755);
    await mkdir(join(prefix, 'logs'));
    await mkdir(join(prefix, 'tmp'));
  });
  afterAll(() => rm(prefix, { recursive: true, force: true }));

  const laterOnly = new Set(FIXTURES.filter((f) => LATER_NGINX_ONLY.has(f.ruleId)).map((f) => f.name));
  it.each(FIXTURE_FILES.filter((name) => !refused.has(name) && !laterOnly.has(name)))(
    '%s passes nginx -t',
    async (name) => {
      const confPath = join(prefix, name);
      await copyFile(join(FIXTURE_DIR, name), confPath);
      const output = await testNginxConfig({
        confPath,
        prefix,
        startupErrorLog: join(prefix, 'logs', 'error.log'),
      });
      expect(output).not.toMatch(/\[(emerg|error)\]/);
    },
  );

  it.each([...refused])('%s is refused by nginx -t, as lint says', async (name) => {
    const confPath = join(prefix, name);
    await copyFile(join(FIXTURE_DIR, name), confPath);
    const test = () =>
      testNginxConfig({ confPath, prefix, startupErrorLog: join(prefix, 'logs', 'error.log') }).then(
        (output) => output,
        (error: Error) => error.message,
      );
    expect(await test()).toMatch(/\[emerg\]/);
    // A missing include is the only mistake: with the file in place nginx accepts the config.
    const includes = [...readFileSync(confPath, 'utf8').matchAll(/^\s*include (\S+);\s*# expect$/gm)];
    if (includes.length === 0) return;
    for (const [, path] of includes) {
      await mkdir(dirname(join(prefix, path as string)), { recursive: true });
      await writeFile(join(prefix, path as string), '');
    }
    expect(await test()).not.toMatch(/\[(emerg|error)\]/);
  });
});
