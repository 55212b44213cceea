import { describe, expect, it } from 'vitest';
import { DIRECTIVES_ELSEWHERE } from '../../../proxy-config/core/nginx-config/directives-elsewhere.js';
import {
  compareNginxVersions,
  parseNginxV,
  parseNginxVersion,
} from '../../../proxy-config/core/nginx-config/nginx-identity.js';
import {
  NGINX_VERSION_CHANGES,
  NGINX_VERSIONS_COVERED,
} from '../../../proxy-config/core/nginx-config/version-changes.js';

const words = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean);

describe('NGINX_VERSION_CHANGES: what each nginx release changed, with its source', () => {
  it.each(NGINX_VERSION_CHANGES.map((row) => [`${row.version} ${row.kind} ${row.directives[0]}`, row]))(
    '%s names its release and its line of CHANGES',
    (_, row) => {
      expect(parseNginxVersion(row.version), row.version).toBeDefined();
      expect(compareNginxVersions(row.version, NGINX_VERSIONS_COVERED.oldest)).toBeGreaterThan(0);
      expect(compareNginxVersions(row.version, NGINX_VERSIONS_COVERED.newest)).toBeLessThanOrEqual(0);
      expect(row.changes).toMatch(/^(Feature|Change): \S.*\.$/);
      // Where the line names directives or parameters (and no module), it names this row's.
      const quoted = [...row.changes.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
      if (quoted.length > 0 && !/\bngx_\w+_module\b/.test(row.changes))
        expect(
          quoted.some(
            (q) => row.directives.includes(q!) || (row.parameter ?? '').startsWith(q!.replace(/=.*/, '')),
          ),
        ).toBe(true);
      // Every row but a changed default has a statement for nginx -t (version-changes-live.test.ts).
      if (row.kind !== 'default') expect(row.example).toMatch(/;$/);
    },
  );

  it('lists the rows in release order', () => {
    const versions = NGINX_VERSION_CHANGES.map((row) => row.version);
    expect(versions).toEqual([...versions].sort(compareNginxVersions));
  });

  it("agrees with directive-unknown's lists of later releases: same names, same release", () => {
    const later = DIRECTIVES_ELSEWHERE.filter((list) => /^nginx \d+\.\d+\.\d+$/.test(list.family));
    expect(later.length).toBeGreaterThan(10);
    for (const list of later) {
      const version = list.family.replace('nginx ', '');
      for (const name of Object.values(list.names).flatMap(words))
        expect(
          NGINX_VERSION_CHANGES.some((row) => row.version === version && row.directives.includes(name)),
          `${name} (${list.family})`,
        ).toBe(true);
    }
    // And the other way: every directive the table adds after 1.22.1 is one directive-unknown leaves alone.
    const listed = new Set(later.flatMap((list) => Object.values(list.names).flatMap(words)));
    for (const row of NGINX_VERSION_CHANGES)
      if (row.kind === 'directive' && compareNginxVersions(row.version, '1.22.1') > 0)
        for (const name of row.directives) expect(listed, `${name} (${row.version})`).toContain(name);
  });
});

describe('parseNginxV', () => {
  it('reads the version and the configure arguments, quoted ones whole', () => {
    const parsed = parseNginxV(
      "nginx version: nginx/1.22.1\nbuilt with OpenSSL 3.0.19\nconfigure arguments: --with-cc-opt='-g -O2' --prefix=/usr/share/nginx --with-http_mp4_module\n",
    );
    expect(parsed).toEqual({
      version: '1.22.1',
      configure: ["--with-cc-opt='-g -O2'", '--prefix=/usr/share/nginx', '--with-http_mp4_module'],
    });
    expect(parseNginxV('nginx version: openresty/1.25.3.1\n').version).toBeUndefined();
  });
});
