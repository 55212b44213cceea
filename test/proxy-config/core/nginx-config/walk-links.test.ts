import { describe, expect, it } from 'vitest';
import {
  MAX_LINKS,
  walkLinks,
  type ReadLinkAt,
} from '../../../../proxy-config/core/nginx-config/walk-links.js';

/** A file system as a map: a path's link target, or null for a file or directory; absent paths are ENOENT. */
function fsOf(entries: Record<string, string | null>): ReadLinkAt {
  return async (path) => {
    if (!(path in entries)) {
      const error: NodeJS.ErrnoException = new Error(`ENOENT: no such file or directory, lstat '${path}'`);
      error.code = 'ENOENT';
      throw error;
    }
    return entries[path] ?? undefined;
  };
}

const ETC = {
  '/etc': null,
  '/etc/nginx': null,
  '/etc/nginx/sites-enabled': null,
  '/etc/nginx/sites-available': null,
};

describe('walkLinks: a path resolved link by link, always to an end', () => {
  it('names a dangling link under /etc/nginx read where it stands (the loop of issue 36)', async () => {
    // A site enabled before its file was put in: nginx's wildcard include lists the link.
    const walked = await walkLinks(
      '/etc/nginx/sites-enabled/status',
      fsOf({ ...ETC, '/etc/nginx/sites-enabled/status': '../sites-available/status' }),
    );
    expect(walked.error?.code).toBe('ENOENT');
    expect(walked.links).toEqual([
      '/etc/nginx/sites-enabled/status is a symlink to ../sites-available/status',
    ]);
    expect(walked.path).toBe('/etc/nginx/sites-available/status');
  });

  it('follows a good link under /etc/nginx to its file', async () => {
    const walked = await walkLinks(
      '/etc/nginx/sites-enabled/shop',
      fsOf({
        ...ETC,
        '/etc/nginx/sites-enabled/shop': '../sites-available/shop',
        '/etc/nginx/sites-available/shop': null,
      }),
    );
    expect(walked).toEqual({
      path: '/etc/nginx/sites-available/shop',
      links: ['/etc/nginx/sites-enabled/shop is a symlink to ../sites-available/shop'],
      moved: false,
    });
  });

  it('reads /etc/nginx in the copy when remapped, the directory itself included', async () => {
    const remap = (path: string) => (path.startsWith('/etc/nginx/') ? `/repo/${path.slice(11)}` : path);
    const walked = await walkLinks(
      '/repo/sites-enabled/app',
      fsOf({
        '/repo': null,
        '/repo/sites-enabled': null,
        '/repo/sites-enabled/app': '/etc/nginx',
        '/repo/app': null,
      }),
      remap,
    );
    expect(walked.error).toBeUndefined();
    expect(walked.path).toBe('/repo');
    expect(walked.moved).toBe(true);
  });

  it('ends a cycle of links, and a remap that keeps moving the path, with ELOOP', async () => {
    const cycle = await walkLinks('/a', fsOf({ '/a': '/b', '/b': '/a' }));
    expect(cycle.error?.code).toBe('ELOOP');
    // A remap whose copy lies under /etc/nginx again: each move counts, the walk still ends.
    const nested = await walkLinks('/etc/nginx/x', fsOf(ETC), (path) =>
      path.startsWith('/etc/nginx/') ? `/etc/nginx/copy/${path.slice(11)}` : path,
    );
    expect(nested.error?.code).toBe('ELOOP');
    expect(MAX_LINKS).toBe(40);
  });
});
