import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { createTempPrefix } from '../../../proxy-config/shell/nginx/temp-prefix.js';

describe('nginx -t on a config named by a relative path', () => {
  let dir: string;
  beforeAll(async () => {
    // Under the working directory (as `config apply --target .proxyops/config` is), so the relative
    // path does not climb out with `..` and could only be found from the working directory.
    await mkdir(resolve('.proxyops'), { recursive: true });
    dir = await mkdtemp(resolve('.proxyops', 'nginx-process-test-'));
    await writeFile(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp { access_log off; }\n`,
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads it from the working directory, not from the nginx prefix', async () => {
    const prefix = await createTempPrefix('nginx-process-test');
    try {
      const confPath = relative(process.cwd(), join(dir, 'nginx.conf'));
      expect(confPath.startsWith('.proxyops/')).toBe(true);
      await expect(testNginxConfig({ confPath, prefix: prefix.dir })).resolves.toBeTypeOf('string');
    } finally {
      await prefix.remove();
    }
  });
});
