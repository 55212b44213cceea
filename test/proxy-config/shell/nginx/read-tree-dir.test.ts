import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHostTreeView, readTreeDir } from '../../../../proxy-config/shell/nginx/read-tree-dir.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-tree-dir-'));
  for (const sub of ['conf.d', 'sites-available', 'sites-enabled', '.git']) await mkdir(join(dir, sub));
  await writeFile(join(dir, 'nginx.conf'), 'events {}\r\nhttp { include conf.d/*.conf; }');
  await writeFile(join(dir, 'conf.d', 'a.conf'), '\t# é, tabs and CRLF\r\n');
  await writeFile(join(dir, 'sites-available', 'app'), 'server {}\n');
  await symlink('../sites-available/app', join(dir, 'sites-enabled', 'app'));
  await writeFile(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readTreeDir: a hand-written tree to ship', () => {
  it('reads every file byte for byte and each link as written; .git stays home', async () => {
    expect(await readTreeDir(dir, 'nginx.conf')).toEqual({
      files: {
        'conf.d/a.conf': '\t# é, tabs and CRLF\r\n',
        'nginx.conf': 'events {}\r\nhttp { include conf.d/*.conf; }',
        'sites-available/app': 'server {}\n',
      },
      links: { 'sites-enabled/app': '../sites-available/app' },
    });
  });

  it('refuses a tree without the main file the spec names, and bytes that are not UTF-8', async () => {
    await expect(readTreeDir(dir, 'main.conf')).rejects.toMatchObject({ code: 'TREE_UNREADABLE' });
    await writeFile(join(dir, 'conf.d', 'latin1.conf'), Buffer.from([0x23, 0x20, 0xe9, 0x0a]));
    await expect(readTreeDir(dir, 'nginx.conf')).rejects.toMatchObject({
      code: 'TREE_NOT_UTF8',
      message: expect.stringContaining(join(dir, 'conf.d', 'latin1.conf')),
    });
  });

  it("reads what a host holds at each shipped path: a file's text, a link's target, or nothing", async () => {
    const shipped = {
      files: { 'conf.d/a.conf': '', 'conf.d/new.conf': '' },
      links: {
        'sites-enabled/app': '../sites-available/app',
        'sites-enabled/status': '../sites-available/status',
      },
    };
    expect(await readHostTreeView(dir, shipped)).toEqual({
      files: { 'conf.d/a.conf': '\t# é, tabs and CRLF\r\n' },
      links: { 'sites-enabled/app': '../sites-available/app' },
      // Whether the file each link would name is here: a new site's is not.
      linkedFiles: { 'sites-enabled/app': true, 'sites-enabled/status': false },
    });
  });
});
