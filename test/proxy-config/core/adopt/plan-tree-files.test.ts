import { describe, expect, it } from 'vitest';
import { planTreeFiles } from '../../../../proxy-config/core/adopt/plan-tree-files.js';

const CONF = '/etc/nginx/nginx.conf';
const DIR = '/etc/nginx';

describe('planTreeFiles: the change that makes a host hold a shipped tree', () => {
  it('changes the files that differ and adds the new ones, byte for byte; the rest stays', () => {
    const change = planTreeFiles(
      CONF,
      DIR,
      {
        files: { 'nginx.conf': 'same\n', 'conf.d/a.conf': 'new text\r\n', 'conf.d/new.conf': '\tfresh' },
        links: {},
      },
      { files: { 'nginx.conf': 'same\n', 'conf.d/a.conf': 'old text\n' }, links: {} },
    );
    expect(change).toEqual({
      conf: CONF,
      files: [
        { path: '/etc/nginx/conf.d/a.conf', before: 'old text\n', after: 'new text\r\n' },
        { path: '/etc/nginx/conf.d/new.conf', before: '', after: '\tfresh' },
      ],
    });
  });

  it('ships an empty file the host lacks, and nothing for an empty file it has', () => {
    const shipped = { files: { 'conf.d/empty.conf': '' }, links: {} };
    expect(planTreeFiles(CONF, DIR, shipped, { files: {}, links: {} }).files).toEqual([
      { path: '/etc/nginx/conf.d/empty.conf', before: '', after: '' },
    ]);
    expect(
      planTreeFiles(CONF, DIR, shipped, { files: { 'conf.d/empty.conf': '' }, links: {} }).files,
    ).toEqual([]);
  });

  it('accepts a link the host has as shipped, and refuses one it lacks or points elsewhere, naming the ln', () => {
    const shipped = { files: {}, links: { 'sites-enabled/app': '../sites-available/app' } };
    expect(
      planTreeFiles(CONF, DIR, shipped, {
        files: {},
        links: { 'sites-enabled/app': '../sites-available/app' },
      }).files,
    ).toEqual([]);
    // The host has the file the link names: the link can be made first.
    expect(() =>
      planTreeFiles(CONF, DIR, shipped, {
        files: {},
        links: {},
        linkedFiles: { 'sites-enabled/app': true },
      }),
    ).toThrow(
      '/etc/nginx/sites-enabled/app is a link to ../sites-available/app in the tree and not a link here; ' +
        'proxyops writes files, not links: make it first (ln -sfn ../sites-available/app /etc/nginx/sites-enabled/app)',
    );
    expect(() =>
      planTreeFiles(CONF, DIR, shipped, { files: {}, links: { 'sites-enabled/app': '/srv/app' } }),
    ).toThrow(/a link to \.\.\/sites-available\/app in the tree and a link to \/srv\/app here/);
  });

  it('never advises a link to a file the host lacks: the file first, then the link', () => {
    // A new site: nginx's wildcard include would match the link and fail to open it.
    const site = {
      files: { 'sites-available/status': 'server {}\n' },
      links: { 'sites-enabled/status': '../sites-available/status' },
    };
    const refusal = (): string => {
      try {
        planTreeFiles(CONF, DIR, site, {
          files: {},
          links: {},
          linkedFiles: { 'sites-enabled/status': false },
        });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal()).toBe(
      '/etc/nginx/sites-enabled/status is a link to ../sites-available/status in the tree and not a link here; ' +
        'proxyops writes files, not links: /etc/nginx/sites-available/status, the file it names, is not here yet: ' +
        'ship the tree without this link first (the file arrives, nothing includes it), then make the link ' +
        '(ln -sfn ../sites-available/status /etc/nginx/sites-enabled/status) and reload nginx',
    );
    // Not in the tree either (or not known to be there): put it in place first.
    expect(() =>
      planTreeFiles(
        CONF,
        DIR,
        { files: {}, links: { 'sites-enabled/x': '/srv/x.conf' } },
        { files: {}, links: {} },
      ),
    ).toThrow(
      /\/srv\/x\.conf, the file it names, is not here: put it in place first, then make the link \(ln -sfn \/srv\/x\.conf \/etc\/nginx\/sites-enabled\/x\)$/,
    );
  });

  it('refuses a file of the tree where the host has a link: writing it would change another path', () => {
    expect(() =>
      planTreeFiles(
        CONF,
        DIR,
        { files: { 'sites-enabled/app': 'server {}\n' }, links: {} },
        { files: {}, links: { 'sites-enabled/app': '../sites-available/app' } },
      ),
    ).toThrow(expect.objectContaining({ code: 'TREE_LINK_DIFFERS' }));
  });
});
