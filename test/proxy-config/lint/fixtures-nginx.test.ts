import { chmod, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNginxConfig } from '../../../proxy-config/shell/nginx-process.js';
import { FIXTURE_DIR, FIXTURE_FILES } from './fixtures.js';

// Every fixture, passing and failing, is a config the real nginx accepts: the rules catch
// mistakes nginx -t lets through, not syntax errors.
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

  it.each(FIXTURE_FILES)('%s passes nginx -t', async (name) => {
    const confPath = join(prefix, name);
    await copyFile(join(FIXTURE_DIR, name), confPath);
    const output = await testNginxConfig({
      confPath,
      prefix,
      startupErrorLog: join(prefix, 'logs', 'error.log'),
    });
    expect(output).not.toMatch(/\[(emerg|error)\]/);
  });
});
