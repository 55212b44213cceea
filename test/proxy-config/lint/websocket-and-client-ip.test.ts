import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig, lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

// The WebSocket and client-address rules on the patterns as published configs write them.
const fired = (text: string, id: string) =>
  lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
    .findings.filter((f) => f.ruleId === id)
    .map((f) => `${f.severity}: ${f.what}`);

/** The 1-based line of TEXT that holds NEEDLE, where a finding is expected. */
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

/** Lints TEXT from a file of its own in DIR, so that its includes are looked for on disk. */
async function firedFromFile(dir: string, text: string, id: string): Promise<string[]> {
  const file = join(dir, 'site.conf');
  await writeFile(file, text);
  const report = await lintNginxConfigFiles(file, { context: 'http' });
  return report.findings.filter((f) => f.ruleId === id).map((f) => f.what);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-upgrade-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Microsoft's "Host ASP.NET Core on Linux with Nginx", copied into countless READMEs and blog posts.
const aspNetCore = (connection: string, http = '') => `
${http}
server {
    listen        80;
    server_name   example.com *.example.com;
    location / {
        proxy_pass         http://localhost:5000;
        proxy_http_version 1.1;
        proxy_set_header   Upgrade $http_upgrade;
        proxy_set_header   Connection ${connection};
        proxy_set_header   Host $host;
        proxy_cache_bypass $http_upgrade;
        proxy_set_header   X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header   X-Forwarded-Proto $scheme;
    }
}`;

describe('proxy-upgrade-connection-missing', () => {
  it("fires on the ASP.NET Core docs' Connection keep-alive, not on the map the SignalR docs give", () => {
    expect(fired(aspNetCore('keep-alive'), 'proxy-upgrade-connection-missing')).toEqual([
      'warning: location / sends Upgrade $http_upgrade but Connection is "keep-alive"',
    ]);
    const map = "map $http_upgrade $connection_upgrade { default upgrade; '' close; }";
    expect(fired(aspNetCore('$connection_upgrade', map), 'proxy-upgrade-connection-missing')).toEqual([]);
    // A map whose values never say upgrade is no fix.
    const keepAlive = "map $http_upgrade $connection_upgrade { default keep-alive; '' close; }";
    expect(
      fired(aspNetCore('$connection_upgrade', keepAlive), 'proxy-upgrade-connection-missing'),
    ).toHaveLength(1);
    // The idiom written the wrong way round: "upgrade" only for requests without Upgrade, so nginx
    // sends "close" on every handshake (the value is read for "websocket", not for any key).
    const inverted = "map $http_upgrade $connection_upgrade { '' upgrade; default close; }";
    expect(fired(aspNetCore('$connection_upgrade', inverted), 'proxy-upgrade-connection-missing')).toEqual([
      'warning: location / sends Upgrade $http_upgrade but Connection is "$connection_upgrade" ("close" for a handshake)',
    ]);
    const byRegex = 'map $http_upgrade $connection_upgrade { ~*^websocket$ upgrade; default close; }';
    expect(fired(aspNetCore('${connection_upgrade}', byRegex), 'proxy-upgrade-connection-missing')).toEqual(
      [],
    );
  });

  it("reads the server's headers in a location without its own, and a proxy_pass inside if", () => {
    // A blog's SignalR set-up: the hub location has its own lines, the rest inherit the server's.
    const site = (connection: string) => `
server {
    listen 80;
    proxy_http_version 1.1;
    proxy_set_header Upgrade $http_upgrade;
    ${connection}
    location / {
        if ($http_upgrade = "websocket") {
            proxy_pass http://localhost:5001;
        }
        proxy_pass http://localhost:5000;
    }
}`;
    expect(fired(site(''), 'proxy-upgrade-connection-missing')).toEqual([
      'warning: location / sends Upgrade $http_upgrade but no Connection header is set (nginx sends "close")',
    ]);
    // Reported at the proxy_pass nginx uses for the location: the first, inside the if.
    const text = site('');
    const lines = lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(text, 'x.conf'),
    })
      .findings.filter((f) => f.ruleId === 'proxy-upgrade-connection-missing')
      .map((f) => f.line);
    expect(lines).toEqual([lineOf(text, 'proxy_pass http://localhost:5001')]);
    expect(fired(site('proxy_set_header Connection "upgrade";'), 'proxy-upgrade-connection-missing')).toEqual(
      [],
    );
  });

  it('stays quiet where an include that was not found could set Connection', async () => {
    const site = `
server {
    listen 80;
    location / {
        proxy_pass http://127.0.0.1:8080;
        include /config/nginx/websocket.conf;
        proxy_set_header Upgrade $http_upgrade;
    }
}`;
    expect(await firedFromFile(dir, site, 'proxy-upgrade-connection-missing')).toEqual([]);
  });
});

describe('proxy-upgrade-http10', () => {
  // Jitsi Meet's xmpp-websocket location, with and without its proxy_http_version line.
  const jitsi = (version: string, http = '') => `
${http}
server {
    listen 80;
    location = /xmpp-websocket {
        proxy_pass http://127.0.0.1:5280/xmpp-websocket;
        ${version}
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection "upgrade";
        proxy_set_header Host $http_host;
    }
}`;

  it('fires where no level sets HTTP/1.1, quiet where the location or an outer level does', () => {
    expect(fired(jitsi(''), 'proxy-upgrade-http10')).toEqual([
      "warning: location = /xmpp-websocket sends Upgrade over HTTP/1.0: no proxy_http_version in this file (nginx's default is 1.0)",
    ]);
    expect(fired(jitsi('proxy_http_version 1.1;'), 'proxy-upgrade-http10')).toEqual([]);
    expect(fired(`http { ${jitsi('', 'proxy_http_version 1.1;')} }`, 'proxy-upgrade-http10')).toEqual([]);
    expect(
      fired(
        `http { ${jitsi('proxy_http_version 1.0;', 'proxy_http_version 1.1;')} }`,
        'proxy-upgrade-http10',
      ),
    ).toEqual(['warning: location = /xmpp-websocket sends Upgrade over HTTP/1.0: proxy_http_version 1.0']);
  });

  it("stays quiet where an include that was not found could set it (SWAG's proxy.conf), not for mime.types", async () => {
    const site = (include: string) => `
${include}
server {
    listen 80;
    location / {
        include /config/nginx/proxy.conf;
        proxy_pass http://127.0.0.1:8080;
    }
    location /ws/ {
        proxy_pass http://127.0.0.1:8081;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection upgrade;
    }
}`;
    expect(await firedFromFile(dir, site('include mime.types;'), 'proxy-upgrade-http10')).toEqual([
      "location /ws/ sends Upgrade over HTTP/1.0: no proxy_http_version in this file (nginx's default is 1.0)",
    ]);
    expect(
      await firedFromFile(dir, site('include /config/nginx/proxy-http11.conf;'), 'proxy-upgrade-http10'),
    ).toEqual([]);
  });
});

describe('client-ip-spoofable', () => {
  // Hina's documented set-up behind a CDN: the CDN's header passed on as the client address.
  const cdn = (variable: string, before = '', listen = 'listen 443 ssl http2;') => `
${before}
server {
    ${listen}
    server_name example.com;
    ssl_certificate     /path/to/cert.pem;
    ssl_certificate_key /path/to/key.pem;
    location / {
        proxy_pass http://127.0.0.1:3000;
        proxy_set_header Host $host;
        proxy_set_header X-Real-IP ${variable};
        proxy_set_header X-Forwarded-For ${variable};
        proxy_set_header X-Forwarded-Proto $http_x_forwarded_proto;
    }
}`;

  it('fires on a request header passed on as the client address, CDN headers included', () => {
    expect(fired(cdn('$http_x_forwarded_for'), 'client-ip-spoofable')).toEqual([
      "warning: proxy_set_header X-Real-IP $http_x_forwarded_for passes on the client's own claim",
      "warning: proxy_set_header X-Forwarded-For $http_x_forwarded_for passes on the client's own claim",
    ]);
    expect(fired(cdn('$http_cf_connecting_ip'), 'client-ip-spoofable')).toHaveLength(2);
    expect(fired(cdn('"$http_x_forwarded_for, $remote_addr"'), 'client-ip-spoofable')).toEqual([]);
  });

  it('stays quiet behind a trusted proxy named by set_real_ip_from, or on a loopback-only server', () => {
    const trusted = 'set_real_ip_from 173.245.48.0/20; real_ip_header CF-Connecting-IP;';
    expect(fired(cdn('$http_cf_connecting_ip', trusted), 'client-ip-spoofable')).toEqual([]);
    // A bridge only a gateway on the host reaches (a TSLink recipe).
    expect(fired(cdn('$http_x_forwarded_for', '', 'listen 127.0.0.1:12283;'), 'client-ip-spoofable')).toEqual(
      [],
    );
  });

  it('stays quiet where an unread include could name the trusted proxies, not for mime.types', async () => {
    expect(
      await firedFromFile(
        dir,
        cdn('$http_x_forwarded_for', 'include conf.d/cloudflare-ips.conf;'),
        'client-ip-spoofable',
      ),
    ).toEqual([]);
    expect(
      await firedFromFile(dir, cdn('$http_x_forwarded_for', 'include mime.types;'), 'client-ip-spoofable'),
    ).toHaveLength(2);
  });
});

describe('client-ip-spoofable on a CDN header passed through', () => {
  it('fires on CF-Connecting-IP copied from the request with no trusted proxies named', () => {
    // A published API's site behind Cloudflare: real_ip_header without set_real_ip_from does nothing.
    const site = `
server {
    listen 80;
    real_ip_header CF-Connecting-IP;
    location / {
        proxy_set_header CF-Connecting-IP $http_cf_connecting_ip;
        proxy_pass http://127.0.0.1:8000;
    }
}`;
    expect(fired(site, 'client-ip-spoofable')).toHaveLength(1);
  });
});

describe('client-ip-spoofable reads the lines in effect where requests are proxied', () => {
  const site = (http: string, server: string, location = '') => `
events {}
http {
  ${http}
  server {
    ${server}
    location / { ${location} proxy_pass http://127.0.0.1:3000; }
  }
}`;

  it('judges an http-level line in the server that proxies with it', () => {
    const forged = 'proxy_set_header X-Real-IP $http_x_real_ip;';
    expect(fired(site(forged, 'listen 80;'), 'client-ip-spoofable')).toHaveLength(1);
    // The server restores the address from its proxy: quiet, though the line sits above it.
    expect(fired(site(forged, 'listen 80; set_real_ip_from 10.0.0.0/8;'), 'client-ip-spoofable')).toEqual([]);
    expect(fired(site(forged, 'listen 127.0.0.1:8080;'), 'client-ip-spoofable')).toEqual([]);
    // Only a CDN's addresses get in (Cloudflare's published ranges, abridged): the header is the CDN's.
    const cdnOnly = 'listen 80; allow 173.245.48.0/20; allow 103.21.244.0/22; deny all;';
    expect(fired(site(forged, cdnOnly), 'client-ip-spoofable')).toEqual([]);
    expect(fired(site(forged, 'listen 80; deny 10.0.0.1; allow all;'), 'client-ip-spoofable')).toHaveLength(
      1,
    );
  });

  it('is quiet on a line a location replaces with its own, and in a server that proxies nothing', () => {
    const replaced = site(
      'proxy_set_header X-Forwarded-For $http_x_forwarded_for;',
      'listen 80;',
      'proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    );
    expect(fired(replaced, 'client-ip-spoofable')).toEqual([]);
    const fastcgiOnly = `
events {}
http {
  server {
    listen 80;
    proxy_set_header X-Real-IP $http_x_real_ip;
    location ~ \\.php$ { include fastcgi_params; fastcgi_pass unix:/run/php.sock; }
  }
}`;
    expect(fired(fastcgiOnly, 'client-ip-spoofable')).toEqual([]);
  });

  it('reports a line in effect for several locations once', () => {
    const two = `
events {}
http {
  server {
    listen 80;
    proxy_set_header X-Forwarded-For $http_x_forwarded_for;
    location /a { proxy_pass http://127.0.0.1:3000; }
    location /b { proxy_pass http://127.0.0.1:3001; }
  }
}`;
    expect(fired(two, 'client-ip-spoofable')).toHaveLength(1);
  });
});
