import { describe, expect, it } from 'vitest';
import { ADOPTION_REFUSALS, managedHeader } from '../../../../proxy-config/core/adopt/adoption-refusals.js';
import { planAdoption } from '../../../../proxy-config/core/adopt/plan-adoption.js';
import { CONF, debianTree, PAIRED, specUpstreams, thrown } from './adopt-fixtures.js';

const FILE = '/etc/nginx/conf.d/upstreams.conf';

/** A tree whose conf.d/upstreams.conf is `upstreams` (and more files), refused or not for the paired spec. */
function refusal(
  upstreams: string,
  more: Record<string, string> = {},
  spec: Record<string, unknown> = PAIRED,
) {
  const base = debianTree(upstreams);
  const files = new Map([...base.files, ...Object.entries(more)]);
  return thrown(() => planAdoption({ conf: CONF, files }, specUpstreams(spec)));
}

describe('the adoption refusals', () => {
  it('pins the row ids, each row complete', () => {
    expect(ADOPTION_REFUSALS.map((r) => r.id)).toEqual([
      'upstream-not-found',
      'upstream-defined-twice',
      'servers-from-wildcard',
      'servers-file-shared',
      'file-managed-by-tool',
      'server-resolved-at-run-time',
      'upstream-managed-by-api',
      'spec-server-not-listed',
      'server-line-shared',
      'servers-in-two-files',
    ]);
    for (const row of ADOPTION_REFUSALS) {
      expect(row.severity).toBe('error');
      expect(row.message.length).toBeGreaterThan(20);
      expect(row.fix.length).toBeGreaterThan(10);
      expect(row.runbook).toBe('docs/nginx-as-it-is.md#what-proxyops-refuses');
    }
  });

  const TWO = 'upstream app {\n  server 127.0.0.2:3001;\n  server 127.0.0.4:3001;\n}\n';
  const cases: Array<[id: string, message: string, run: () => string]> = [
    [
      'upstream-not-found',
      `${CONF}: no upstream app in the 4 files nginx reads from it (it defines web, legacy): name an upstream the config defines, or define it there first [upstream-not-found]`,
      () => refusal('upstream web { server 10.0.0.1:80; }\nupstream legacy { server 10.0.0.2:80; }\n'),
    ],
    [
      'upstream-defined-twice',
      `${FILE}:1: upstream app is defined again at /etc/nginx/sites-enabled/shop:6: keep one upstream of that name (rename the other) [upstream-defined-twice]`,
      () =>
        refusal(TWO, {
          '/etc/nginx/sites-enabled/shop':
            'server {\n  listen 8080;\n  location / { proxy_pass http://app; }\n}\n\nupstream app { server 127.0.0.9:1; }\n',
        }),
    ],
    [
      'servers-from-wildcard',
      `${FILE}:2: upstream app includes pools/app-*.conf, a wildcard matching 2 files (/etc/nginx/pools/app-1.conf, /etc/nginx/pools/app-2.conf): include one file by its name inside the block, or write the server lines in the block [servers-from-wildcard]`,
      () =>
        refusal('upstream app {\n  include pools/app-*.conf;\n}\n', {
          '/etc/nginx/pools/app-1.conf': 'server 127.0.0.2:3001;\n',
          '/etc/nginx/pools/app-2.conf': 'server 127.0.0.4:3001;\n',
        }),
    ],
    [
      'servers-file-shared',
      `${FILE}:2: upstream app includes /etc/nginx/app-servers.inc, which ${FILE}:5 includes too: give this upstream a server file of its own (or write its server lines in the block) [servers-file-shared]`,
      () =>
        refusal(
          'upstream app {\n  include app-servers.inc;\n}\nupstream app_ws {\n  include app-servers.inc;\n}\n',
          {
            '/etc/nginx/app-servers.inc': 'server 127.0.0.2:3001;\nserver 127.0.0.4:3001;\n',
          },
        ),
    ],
    [
      'file-managed-by-tool',
      `${FILE}:2: the file holding upstream app's servers says it is managed by Ansible ("Ansible managed: upstreams.conf.j2 modified on 2024-01-02"): add the alternate server lines in that tool's template instead, or remove the header if the tool no longer writes the file [file-managed-by-tool]`,
      () => refusal(`\n# Ansible managed: upstreams.conf.j2 modified on 2024-01-02\n${TWO}`),
    ],
    [
      'file-managed-by-tool',
      `/etc/nginx/pools/app.conf:1: the file holding upstream app's servers says it is managed by Puppet ("This file is managed by Puppet. DO NOT EDIT."): add the alternate server lines in that tool's template instead, or remove the header if the tool no longer writes the file [file-managed-by-tool]`,
      () =>
        refusal('upstream app {\n  include pools/app.conf;\n}\n', {
          '/etc/nginx/pools/app.conf':
            '# This file is managed by Puppet. DO NOT EDIT.\nserver 127.0.0.2:3001;\nserver 127.0.0.4:3001;\n',
        }),
    ],
    [
      'server-resolved-at-run-time',
      `${FILE}:4: upstream app's server app.internal:3001 has resolve: nginx changes its addresses at run time: list the instances by IP address (or a name resolved at load), one server line each [server-resolved-at-run-time]`,
      () => refusal(TWO.replace('}\n', '  server app.internal:3001 resolve;\n}\n')),
    ],
    [
      'server-resolved-at-run-time',
      `${FILE}:2: upstream app's server app.service.consul has service=: nginx changes its addresses at run time: list the instances by IP address (or a name resolved at load), one server line each [server-resolved-at-run-time]`,
      () => refusal(TWO.replace('server 127.0.0.2:3001;', 'server app.service.consul service=http;')),
    ],
    [
      'upstream-managed-by-api',
      `${FILE}:2: upstream app has a zone and the config serves the API (api at /etc/nginx/sites-enabled/shop:3): change its members through the API, or remove the api/state directive to let the file decide [upstream-managed-by-api]`,
      () =>
        refusal(TWO.replace('{\n', '{\n  zone app 64k;\n'), {
          '/etc/nginx/sites-enabled/shop': 'server {\n  listen 8080;\n  location /api { api write=on; }\n}\n',
        }),
    ],
    [
      'upstream-managed-by-api',
      `${FILE}:3: upstream app keeps its servers in a state file (/var/lib/nginx/state/app.conf): change its members through the API, or remove the api/state directive to let the file decide [upstream-managed-by-api]`,
      () => refusal('upstream app {\n  zone app 64k;\n  state /var/lib/nginx/state/app.conf;\n}\n'),
    ],
    [
      'spec-server-not-listed',
      `${FILE}:1: upstream app does not list the spec's server 127.0.0.4:3001 (it lists 127.0.0.2:3001, 127.0.0.6:3001): list that server in the block first (nginx -t, reload), or correct the spec's address [spec-server-not-listed]`,
      () => refusal(TWO.replace('127.0.0.4', '127.0.0.6')),
    ],
    [
      'server-line-shared',
      `${FILE}:2: upstream app's server 127.0.0.2:3001 shares its line with another directive or a brace: put that server on a line of its own [server-line-shared]`,
      () => refusal('upstream app {\n  server 127.0.0.2:3001; server 127.0.0.4:3001;\n}\n'),
    ],
    [
      'server-line-shared',
      `${FILE}:1: upstream app's server 127.0.0.2:3001 shares its line with another directive or a brace: put that server on a line of its own [server-line-shared]`,
      () =>
        refusal(
          'upstream app { server 127.0.0.2:3001; }\n',
          {},
          {
            app: { servers: [{ host: '127.0.0.2', port: 3001, alternate: 3002 }] },
          },
        ),
    ],
    [
      'servers-in-two-files',
      `${FILE}:2: upstream app's spec servers are written in ${FILE} and /etc/nginx/pools/more.conf: keep the spec's servers together: all in the block, or all in the included file [servers-in-two-files]`,
      () =>
        refusal('upstream app {\n  server 127.0.0.2:3001;\n  include pools/more.conf;\n}\n', {
          '/etc/nginx/pools/more.conf': 'server 127.0.0.4:3001;\n',
        }),
    ],
  ];

  it.each(cases)(
    '%s: refused in one line naming the construct, file:line and the fix',
    (id, message, run) => {
      expect(run()).toBe(`ADOPT_REFUSED ${message}`);
      expect(message).not.toContain('\n');
      expect(message).toContain(`[${id}]`);
    },
  );

  it('says "the file" of a tree of one file', () => {
    const one = {
      conf: CONF,
      files: new Map([[CONF, 'events {}\nhttp { upstream web { server 10.0.0.1:80; } }\n']]),
    };
    expect(thrown(() => planAdoption(one, specUpstreams(PAIRED)))).toContain(
      'no upstream app in the file nginx reads from it (it defines web)',
    );
  });

  it('accepts what is close to each refused construct', () => {
    const ok = (upstreams: string, more: Record<string, string> = {}) =>
      expect(refusal(upstreams, more)).toBe('did not throw');
    // A wildcard matching one file, and a zone without the API.
    ok('upstream app {\n  zone app 64k;\n  include pools/app-*.conf;\n}\n', {
      '/etc/nginx/pools/app-1.conf': 'server 127.0.0.2:3001;\nserver 127.0.0.4:3001;\n',
    });
    // A header that names no tool, and a comment below the first directive.
    ok(`# Kept by the web team since 2019\n${TWO}# managed by ansible\n`);
    // A trailing comment on the server line is not another directive.
    ok('upstream app {\n  server 127.0.0.2:3001; # blue\n  server 127.0.0.4:3001;#green\n}\n');
    // Other upstreams may use resolve; only the adopted one matters.
    ok(`${TWO}upstream dyn { zone dyn 64k; server x.example resolve; }\n`);
  });

  it('names the tool of the usual headers, and none below the first directive', () => {
    expect(managedHeader('# Ansible managed\nupstream a {}\n')).toMatchObject({ tool: 'Ansible', line: 1 });
    expect(managedHeader('#\n# Managed by Chef for web-1\n')).toMatchObject({ tool: 'Chef', line: 2 });
    expect(managedHeader('## Generated by SaltStack\n')).toMatchObject({ tool: 'SaltStack' });
    expect(managedHeader('# This file is managed by the platform team\n')).toMatchObject({
      tool: 'Platform',
    });
    expect(managedHeader('upstream a {}\n# Ansible managed\n')).toBeUndefined();
    expect(managedHeader('')).toBeUndefined();
  });

  it('checks every spec upstream, not only the first', () => {
    const two = specUpstreams({ ...PAIRED, nope: { servers: [{ host: '10.0.0.1', port: 80 }] } });
    expect(thrown(() => planAdoption(debianTree(), two))).toMatch(
      /^ADOPT_REFUSED \/etc\/nginx\/nginx.conf: no upstream nope .*\[upstream-not-found\]$/,
    );
  });
});
