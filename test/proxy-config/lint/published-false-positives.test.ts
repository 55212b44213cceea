import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig, lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

// The false positives issue 38's second reading of published configs found, each on the pattern as
// found, next to the near twin where the rule must still fire.
const findings = (text: string, id: string) =>
  lintNginxConfig({
    mainFile: 'x.conf',
    files: ['x.conf'],
    directives: parseNginxConfig(text, 'x.conf'),
  }).findings.filter((f) => f.ruleId === id);
const fired = (text: string, id: string) => findings(text, id).map((f) => `${f.line}: ${f.what}`);

describe('add-header-dropped of a header made of $upstream_* variables', () => {
  // Mastodon-style: X-Cached at server level, static locations that repeat HSTS and proxy nothing.
  const site = (staticLocation: string) => `server {
    listen 80;
    add_header Strict-Transport-Security "max-age=31536000" always;
    add_header X-Cached $upstream_cache_status;
    location / { proxy_pass http://127.0.0.1:3000; proxy_cache app; }
    location ~ ^/(emoji|packs|system/media_attachments)/ {
      ${staticLocation}
    }
  }`;
  const staticOnly = `add_header Cache-Control "public, max-age=2419200, immutable";
      add_header Strict-Transport-Security "max-age=31536000" always;
      try_files $uri =404;`;

  it('is quiet on a static location: no upstream fills the variable there, so nginx sends no header', () => {
    expect(fired(site(staticOnly), 'add-header-dropped')).toEqual([]);
  });

  it('still fires where the location proxies, or is internal (an X-Accel-Redirect target keeps the upstream values)', () => {
    expect(
      fired(site(`${staticOnly}\n      proxy_pass http://127.0.0.1:3000;`), 'add-header-dropped'),
    ).toEqual([expect.stringContaining('drops X-Cached')]);
    expect(fired(site(`${staticOnly}\n      internal;`), 'add-header-dropped')).toHaveLength(1);
  });

  it('still fires when the dropped header also carries text of its own', () => {
    expect(
      fired(
        site(staticOnly).replace('$upstream_cache_status', '"cache=$upstream_cache_status"'),
        'add-header-dropped',
      ),
    ).toHaveLength(1);
  });
});

describe('regex-unanchored where matching anywhere is the intent', () => {
  it('is quiet on a location nested in an anchored parent', () => {
    const text = `server { listen 80;
      location ~ ^/uploads/ {
        location ~ /_?optimized/ { expires 1y; }
      }
    }`;
    expect(fired(text, 'regex-unanchored')).toEqual([]);
    // Under location / (or nested in an unanchored parent) it may still match anywhere.
    expect(fired(text.replace('~ ^/uploads/', '/'), 'regex-unanchored')).toHaveLength(1);
    // Nested or not, an extension without $ still takes x.php.jpg.
    expect(fired(text.replace('/_?optimized/', '\\.php'), 'regex-unanchored')).toHaveLength(1);
  });

  it('is quiet on a deny-style location that ends in any return', () => {
    expect(fired('server { listen 80; location ~ /\\.git/ { return 500; } }', 'regex-unanchored')).toEqual(
      [],
    );
    expect(
      fired('server { listen 80; location ~ /\\.git { deny all; return 404; } }', 'regex-unanchored'),
    ).toEqual([]);
    // A location that serves something still fires.
    expect(
      fired('server { listen 80; location ~ /\\.git/ { root /srv; } }', 'regex-unanchored'),
    ).toHaveLength(1);
  });

  it("reports the unescaped '.' of /.git/ as its own finding (it also matches /xgit/)", () => {
    expect(fired('server { listen 80; location ~ /.git/ { return 500; } }', 'regex-dot-unescaped')).toEqual([
      expect.stringContaining('/xgit/'),
    ]);
    expect(fired('server { listen 80; location ~ /\\.git/ { return 500; } }', 'regex-dot-unescaped')).toEqual(
      [],
    );
    expect(
      fired('server { listen 80; location ~ .php$ { return 404; } }', 'regex-dot-unescaped'),
    ).toHaveLength(1);
    // A dot that is a wildcard on purpose (.*, .+, (.)) is left alone.
    expect(
      fired('server { listen 80; location ~ ^/(.+)/(.)x(.*)$ { return 404; } }', 'regex-dot-unescaped'),
    ).toEqual([]);
  });
});

describe('proxy-buffering-off on streaming and long-poll endpoints', () => {
  const location = (path: string, body: string) =>
    `server { listen 80; location ${path} { proxy_pass http://127.0.0.1:8080; ${body} } }`;

  it('is quiet on an SSE, WebSocket or streaming path, a message bus, or with long read timeouts beside it', () => {
    expect(fired(location('/events/', 'proxy_buffering off;'), 'proxy-buffering-off')).toEqual([]);
    expect(fired(location('/api/stream', 'proxy_buffering off;'), 'proxy-buffering-off')).toEqual([]);
    expect(fired(location('/message-bus/', 'proxy_buffering off;'), 'proxy-buffering-off')).toEqual([]);
    expect(
      fired(
        location(
          '/ws',
          'proxy_buffering off; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade";',
        ),
        'proxy-buffering-off',
      ),
    ).toEqual([]);
    expect(
      fired(location('/api/', 'proxy_buffering off; proxy_read_timeout 3600s;'), 'proxy-buffering-off'),
    ).toEqual([]);
    expect(
      fired(
        'upstream sse_backend { server 127.0.0.1:8080; } server { listen 80; location /api/ { proxy_pass http://sse_backend; proxy_buffering off; } }',
        'proxy-buffering-off',
      ),
    ).toEqual([]);
  });

  it('still fires on an ordinary API location', () => {
    expect(fired(location('/api/', 'proxy_buffering off;'), 'proxy-buffering-off')).toHaveLength(1);
    expect(
      fired(location('/api/', 'proxy_buffering off; proxy_read_timeout 60s;'), 'proxy-buffering-off'),
    ).toHaveLength(1);
    expect(fired(location('/downloads/', 'proxy_buffering off;'), 'proxy-buffering-off')).toHaveLength(1);
  });
});

describe('request-id-missing on a location proxying to a third party', () => {
  const site = (pass: string, extra: string) => `server { listen 80;
    location /tile/ {
      proxy_pass ${pass};
      ${extra}
      proxy_set_header Host tile.openstreetmap.org;
    }
  }`;

  it("is quiet when the client's headers are stripped and the upstream is another party's host", () => {
    expect(
      fired(
        site('https://tile.openstreetmap.org/', 'proxy_pass_request_headers off;'),
        'request-id-missing',
      ).filter((f) => f.includes('X-Request-ID')),
    ).toEqual([]);
  });

  it('still fires on our own app, or when the client headers go through', () => {
    expect(
      fired(site('https://tile.openstreetmap.org/', ''), 'request-id-missing').filter((f) =>
        f.includes('X-Request-ID'),
      ),
    ).toHaveLength(1);
    expect(
      fired(
        `upstream app { server 127.0.0.1:8080; } ${site('http://app/', 'proxy_pass_request_headers off;')}`,
        'request-id-missing',
      ).filter((f) => f.includes('X-Request-ID')),
    ).toHaveLength(1);
    expect(
      fired(
        `upstream tiles.internal { server 10.0.0.5:80; } ${site('http://tiles.internal/', 'proxy_pass_request_headers off;')}`,
        'request-id-missing',
      ).filter((f) => f.includes('X-Request-ID')),
    ).toHaveLength(1);
  });
});

describe('include-missing of a stock file named by the absolute path of another layout', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-stock-layout-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const missingIncludes = async (include: string) => {
    const file = join(dir, 'nginx.conf');
    await writeFile(file, `events {}\nhttp {\n  include ${include};\n  server { listen 80; }\n}\n`);
    return (await lintNginxConfigFiles(file)).findings
      .filter((f) => f.ruleId === 'include-missing')
      .map((f) => f.what);
  };

  it.each([
    'E:/nginx/conf/mime.types',
    'C:/nginx-1.22.1/conf/mime.types',
    '/usr/local/nginx/conf/mime.types',
    '/usr/local/etc/nginx/mime.types',
    '/opt/homebrew/etc/nginx/fastcgi_params',
  ])('assumes %s, as it does mime.types by name', async (path) => {
    expect(await missingIncludes(path)).toEqual([]);
  });

  it('still reports a file that is no stock one, or a stock name outside any nginx directory', async () => {
    expect(await missingIncludes('E:/nginx/conf/proxy.conf')).toHaveLength(1);
    expect(await missingIncludes('/srv/app/mime.types')).toHaveLength(1);
  });
});
