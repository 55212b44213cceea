import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConfigFile } from '../../../proxy-config/config/render-config.js';

// `config render` of a spec with nginx.conf: it renders nothing, so it says so in one line
// instead of printing a full config nginx never runs.
describe('config render of a spec naming a hand-written config', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-render-adopted-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused (BAD_OPTION, exit 2), naming config diff instead', async () => {
    const spec = join(dir, 'spec.json');
    await writeFile(
      spec,
      JSON.stringify({
        version: 1,
        nginx: { conf: '/etc/nginx/nginx.conf' },
        upstreams: { app: { servers: [{ host: '127.0.0.2', port: 3001, alternate: '127.0.0.3:3001' }] } },
      }),
    );
    await expect(renderConfigFile(spec)).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: `${spec} names a hand-written config (nginx.conf /etc/nginx/nginx.conf), so proxyops renders nothing from it: see what it would change with config diff --spec ${spec}`,
    });
  });
});
