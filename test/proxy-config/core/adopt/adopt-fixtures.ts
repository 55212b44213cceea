import type { NginxTree, TreeChange } from '../../../../proxy-config/core/adopt/tree.js';
import type { UpstreamSpec } from '../../../../proxy-config/core/spec/proxy-spec.js';
import { validateSpec } from '../../../../proxy-config/core/spec/validate-spec.js';

export const CONF = '/etc/nginx/nginx.conf';

/** A hand-written Debian-style tree: tabs, odd spacing, comments, two upstreams, a site. */
export function debianTree(upstreams: string = UPSTREAMS): NginxTree {
  return tree({
    [CONF]: [
      'user nobody;',
      'pid /run/nginx.pid;',
      'events { worker_connections 512; }',
      'http {',
      '\tinclude /etc/nginx/conf.d/*.conf;',
      '\tinclude /etc/nginx/sites-enabled/*;',
      '}',
      '',
    ].join('\n'),
    '/etc/nginx/conf.d/upstreams.conf': upstreams,
    '/etc/nginx/sites-enabled/shop': [
      'server {',
      '    listen 8080;   # the shop',
      '    location / { proxy_pass http://app; include snippets/proxy-headers.conf; }',
      '    location /old/ { proxy_pass http://legacy; }',
      '}',
      '',
    ].join('\n'),
    '/etc/nginx/snippets/proxy-headers.conf': 'proxy_set_header Host $host;\n',
  });
}

export const UPSTREAMS = [
  '# Upstreams of the shop (hand-written, 2019)',
  'upstream app {',
  '\t# the two app servers',
  '\tserver 127.0.0.2:3001   max_fails=3  fail_timeout=10s;   # blue',
  '    server 127.0.0.4:3001 max_fails=2 fail_timeout=5s weight=2;',
  '',
  '\tkeepalive 16;',
  '}',
  '',
  'upstream   legacy {',
  '  server 10.0.0.9:8080;',
  '}',
  '',
].join('\n');

export function tree(files: Record<string, string>): NginxTree {
  return { conf: CONF, files: new Map(Object.entries(files)) };
}

/** The spec's upstreams for a spec with nginx.conf, through the real validation and defaults. */
export function specUpstreams(upstreams: Record<string, unknown>): Record<string, UpstreamSpec> {
  return validateSpec({ version: 1, nginx: { conf: CONF }, upstreams }, 'spec.yaml').upstreams;
}

/** The app pool paired blue/green: each server with its alternate on the next address. */
export const PAIRED = {
  app: {
    servers: [
      { host: '127.0.0.2', port: 3001, alternate: '127.0.0.3:3001' },
      { host: '127.0.0.4', port: 3001, alternate: '127.0.0.5:3001' },
    ],
  },
};

/** The tree as the change leaves it (what the shell's applier writes). */
export function applied(before: NginxTree, change: TreeChange): NginxTree {
  const files = new Map(before.files);
  for (const file of change.files) files.set(file.path, file.after);
  return { conf: before.conf, files };
}

/** The error a call throws, as `CODE message`. */
export function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return `${code ?? 'no code'} ${message}`;
  }
  return 'did not throw';
}
