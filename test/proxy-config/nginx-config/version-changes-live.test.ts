import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { parseNginxV, type NginxIdentity } from '../../../proxy-config/core/nginx-config/nginx-identity.js';
import { predates } from '../../../proxy-config/core/nginx-config/version-support.js';
import {
  NGINX_VERSION_CHANGES,
  type NginxVersionChange,
} from '../../../proxy-config/core/nginx-config/version-changes.js';
import { findNginxBinary } from '../../../proxy-config/shell/nginx/nginx-binary.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';

/**
 * The one nginx these machines can run (Debian's 1.22.1, with its backports): every claim the table
 * makes about it is checked on its nginx -t.
 */
const HERE: NginxIdentity = (() => {
  const binary = findNginxBinary();
  const run = spawnSync(binary, ['-V'], { encoding: 'utf8' });
  const owner = spawnSync('dpkg-query', ['-S', binary], { encoding: 'utf8' }).stdout.split(':')[0] ?? '';
  const debian = spawnSync('dpkg-query', ['-W', '-f=${Version}', owner], { encoding: 'utf8' }).stdout;
  return {
    version: parseNginxV(`${run.stdout}${run.stderr}`).version,
    source: binary,
    debianVersion: debian,
  };
})();

/** A whole config holding the row's example in its context (stream and mail: their modules are not installed here). */
function configOf(row: NginxVersionChange): string {
  const example = (row.example ?? '').replaceAll('PORT', '18081');
  const server = (body: string) => `server { listen 127.0.0.1:18080; ${body} }`;
  const http = (body: string) =>
    `pid logs/nginx.pid;\nerror_log logs/error.log;\nevents {}\nhttp {\n${body}\n}\n`;
  if (row.context === 'main') return `${example}\n${http(server(''))}`;
  if (row.context === 'server') return http(server(example));
  if (row.context === 'location') return http(server(`location / { ${example} }`));
  return http(
    `upstream u { server 127.0.0.1:9; ${example} }\n${server('location / { proxy_pass http://u; }')}`,
  );
}

const LIVE = NGINX_VERSION_CHANGES.filter(
  (row) => row.example && !row.context.startsWith('stream') && !row.context.startsWith('mail'),
);
const refusedBefore = (row: NginxVersionChange) =>
  row.kind === 'directive' || row.kind === 'context' || row.kind === 'parameter';

describe("the version table against nginx 1.22's own nginx -t", () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-version-changes-'));
    await chmod(prefix, 0o755);
    await mkdir(join(prefix, 'logs'));
  });
  afterAll(() => rm(prefix, { recursive: true, force: true }));

  it("runs on Debian's nginx 1.22.1, the version the table is checked against", () => {
    expect(HERE.version).toBe('1.22.1');
    expect(HERE.debianVersion).toMatch(/^1\.22\.1-/);
    expect(LIVE.length).toBeGreaterThan(30);
  });

  it.each(LIVE.map((row, i) => [`${row.version} ${row.example}`, row, i]))(
    '%s: nginx -t and lint judged as the nginx here agree with the row, and lint judged as its release takes it',
    async (_, row, i) => {
      const confPath = join(prefix, `row-${i}.conf`);
      await writeFile(confPath, configOf(row));
      const output = await testNginxConfig({ confPath, prefix }).then(
        (out) => out,
        (error: Error) => error.message,
      );
      const refuses = predates(HERE, row) && refusedBefore(row);
      if (refuses) expect(output).toMatch(/\[emerg\]/);
      else expect(output, output).not.toMatch(/\[(emerg|error)\]/);
      // The removal and the deprecation come after 1.22, which still takes the statement: `ssl` with a warning.
      if (row.kind === 'removed') expect(output).toMatch(/\[warn\] .*the "ssl" directive is deprecated/);

      const refusals = async (nginx: NginxIdentity) =>
        (await lintNginxConfigFiles(confPath, { nginx })).findings
          .filter((f) => f.ruleId === 'directive-not-in-version' || f.ruleId === 'directive-not-allowed')
          .map((f) => `${f.ruleId}: ${f.what}`);
      expect((await refusals(HERE)).length > 0, String(await refusals(HERE))).toBe(refuses);
      expect(await refusals({ version: row.version, source: 'test' })).toEqual([]);
    },
  );
});
