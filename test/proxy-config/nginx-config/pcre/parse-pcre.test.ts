import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasExponentialBacktracking } from '../../../../proxy-config/core/nginx-config/pcre/backtracking.js';
import { parsePcre } from '../../../../proxy-config/core/nginx-config/pcre/parse-pcre.js';
import { testNginxConfig } from '../../../../proxy-config/shell/nginx/nginx-process.js';

/** Patterns nginx's PCRE2 accepts, PCRE-only syntax included. */
const ACCEPTED = [
  '^/api/(v1|v2)/(.*)$',
  '\\.(?:css|js|png|jpe?g|gif|ico|svg|woff2?)$',
  '^/(?<section>[a-z]+)/(?P<id>\\d+)$',
  'a++b',
  '(?>a+)b',
  '(?i)^/Admin',
  '\\Qa.b*c\\E$',
  '[[:alpha:]][[:^digit:]]',
  '[]a]',
  '[^]a]',
  '[a\\-z]',
  '[\\w.-]+',
  'x{2,5}',
  'x{,5}',
  'a{',
  '^\\/static\\/',
  '\\x41\\x{41}',
  '(*UTF)\\x{263A}',
  '(?#comment)^/a',
  '(a)\\1',
  '(a)?(?(1)b|c)',
  '(?|(a)|(b))',
  '\\p{L}+',
  '^[A-Za-z0-9/._~!*+,;=@-]*$',
  '(*UTF)^/a',
  '(?=a)a',
  '(?<!x)y',
  '\\d\\D\\h\\R',
];

/** Patterns pcre2_compile() refuses. */
const REFUSED = [
  '(a',
  'a)',
  '[a-',
  '[z-a]',
  '*a',
  'a|*b',
  '(?<n>a)(?<n>b)',
  'x{5,2}',
  'x{99999}',
  'a**',
  '\\',
  '\\i',
  '(?Q)',
  '(?<1a>x)',
  '^*',
  '[[:foo:]]',
  '\\x{263A}',
  '(?(1)a|b)',
  '(a)\\2',
];

describe('parsePcre agrees with the PCRE2 nginx links', () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-pcre-'));
    await chmod(prefix, 0o755);
    await mkdir(join(prefix, 'logs'));
  });
  afterAll(() => rm(prefix, { recursive: true, force: true }));

  /** True when nginx -t accepts `location ~ "pattern"`. */
  async function nginxAccepts(pattern: string): Promise<boolean> {
    const confPath = join(prefix, 'nginx.conf');
    const quoted = pattern.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    await writeFile(
      confPath,
      `pid logs/nginx.pid;\nerror_log logs/error.log;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path logs;\n  proxy_temp_path logs;\n  fastcgi_temp_path logs;\n  uwsgi_temp_path logs;\n  scgi_temp_path logs;\n  server {\n    listen 127.0.0.1:1;\n    location ~ "${quoted}" {}\n  }\n}\n`,
    );
    return testNginxConfig({ confPath, prefix, startupErrorLog: join(prefix, 'logs', 'error.log') }).then(
      () => true,
      () => false,
    );
  }

  it.each(ACCEPTED)('accepts %s, as nginx does', async (pattern) => {
    expect(await nginxAccepts(pattern)).toBe(true);
    expect(parsePcre(pattern)).toMatchObject({ ok: true });
  });

  it.each(REFUSED)('refuses %s, as nginx does', async (pattern) => {
    expect(await nginxAccepts(pattern)).toBe(false);
    expect(parsePcre(pattern)).toMatchObject({ ok: false });
  });

  it('counts capture groups, named ones included and non-capturing ones not', () => {
    const groups = (p: string) => {
      const r = parsePcre(p);
      return r.ok ? r.regex.groups : -1;
    };
    expect(groups('^/a')).toBe(0);
    expect(groups('^/(a)/(?:b)/(?<c>c)/(?=d)')).toBe(2);
    expect(groups('(?i)/x')).toBe(0);
    expect(groups('\\(not\\)[(]')).toBe(0);
  });
});

describe('hasExponentialBacktracking', () => {
  const redos = (p: string) => {
    const r = parsePcre(p);
    if (!r.ok) throw new Error(r.error);
    return hasExponentialBacktracking(r.regex.root);
  };

  it.each([
    '(a+)+$',
    '^(\\w+\\s?)*$',
    '(a|a)*b',
    '(a|aa)*$',
    '^(.*)*x',
    '(\\d+)*z',
    '([a-z]+-?)+$',
    '(a*b*)*c',
    '^(x+x+)+y',
  ])('%s blows up', (p) => expect(redos(p)).toBe(true));

  it.each([
    '^/api/(v1|v2)/(.*)$',
    '(\\w+\\.)*\\w+$',
    '^(/[^/]+)*/?$',
    '(a|ab)*c',
    '(a+){2,5}',
    '\\.(?:css|js)$',
    '^[A-Za-z0-9/._~!*+,;=@-]*$',
    '(foo|bar)+',
    '(a?)*',
  ])('%s does not', (p) => expect(redos(p)).toBe(false));
});
