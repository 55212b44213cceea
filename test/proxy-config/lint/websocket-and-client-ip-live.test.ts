import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { freePort } from '../../support/ports.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';

/** The findings of `ids` on an http-level body (server blocks), as `rule severity`. */
const findings = (body: string, ...ids: string[]) =>
  lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(body, 'x.conf') })
    .findings.filter((f) => ids.includes(f.ruleId))
    .map((f) => `${f.ruleId} ${f.severity}`);

/** A WebSocket handshake through nginx: the echo of one message, or the status that refused it. */
function handshake(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/socket.io/`, { handshakeTimeout: 10_000 });
    socket.once('open', () => socket.send('ping'));
    socket.once('message', (data) => {
      resolve(`echo ${String(data)}`);
      socket.close();
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve(`refused ${response.statusCode ?? 0}`);
      response.destroy();
    });
    socket.once('error', (error) => resolve(`failed: ${error.message}`));
  });
}

// The Node WebSocket server as it comes (ws's own HTTP server, which answers 426 to plain requests),
// behind the real nginx, with the configs as found in the wild and their fixes.
describe('a WebSocket route through the real nginx', () => {
  let app: WebSocketServer;
  let appPort: number;
  let port: number;
  let nginx: LiveNginx | undefined;
  /** The HTTP version of each handshake the app accepted. */
  const accepted: string[] = [];

  beforeAll(async () => {
    app = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => app.once('listening', resolve));
    appPort = (app.address() as AddressInfo).port;
    app.on('connection', (socket, request) => {
      accepted.push(request.httpVersion);
      socket.on('message', (data) => socket.send(String(data)));
    });
    port = await freePort();
  });
  afterAll(async () => {
    await nginx?.stop();
    await new Promise((resolve) => app.close(resolve));
  });

  const site = (location: string, http = '') => `
  ${http}
  server {
    listen 127.0.0.1:${port} default_server;
    location /socket.io/ {
      proxy_pass http://127.0.0.1:${appPort};
      proxy_set_header Host $host;
      ${location}
    }
  }`;
  const serve = async (body: string) => {
    if (nginx) await nginx.reload(body);
    else nginx = await startLiveNginx(body);
  };

  it('fails the handshake without Connection: upgrade, as proxy-upgrade-connection-missing says', async () => {
    // The socket.io docs' location less its Connection line, as many copies have it.
    const found = site('proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade;');
    expect(findings(found, 'proxy-upgrade-connection-missing')).toEqual([
      'proxy-upgrade-connection-missing warning',
    ]);
    await serve(found);
    expect(await handshake(port)).toBe('refused 426');

    const fixed = site(
      'proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection $connection_upgrade;',
      "map $http_upgrade $connection_upgrade { default upgrade; '' close; }",
    );
    expect(findings(fixed, 'proxy-upgrade-connection-missing', 'proxy-upgrade-http10')).toEqual([]);
    await serve(fixed);
    expect(await handshake(port)).toBe('echo ping');
  });

  it('relays the upgrade over HTTP/1.0, which RFC 6455 forbids: proxy-upgrade-http10 is a warning', async () => {
    // code-server's documented location: Upgrade and Connection, no proxy_http_version.
    const found = site('proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection upgrade;');
    expect(findings(found, 'proxy-upgrade-http10', 'proxy-upgrade-connection-missing')).toEqual([
      'proxy-upgrade-http10 warning',
    ]);
    await serve(found);
    accepted.length = 0;
    // nginx relays the 101 whatever version it spoke: ws, lenient, accepts an HTTP/1.0 handshake.
    expect(await handshake(port)).toBe('echo ping');
    expect(accepted).toEqual(['1.0']);

    const fixed = site(
      'proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection upgrade;',
    );
    expect(findings(fixed, 'proxy-upgrade-http10')).toEqual([]);
    await serve(fixed);
    accepted.length = 0;
    expect(await handshake(port)).toBe('echo ping');
    expect(accepted).toEqual(['1.1']);
  });
});

// What client-ip-spoofable claims of nginx: $http_x_forwarded_for is passed on as the client wrote
// it, $proxy_add_x_forwarded_for appends the address nginx saw.
describe('a client address header through the real nginx', () => {
  let app: Server;
  let appPort: number;
  let port: number;
  let nginx: LiveNginx | undefined;

  beforeAll(async () => {
    app = createServer((request, response) => response.end(JSON.stringify(request.headers)));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appPort = (app.address() as AddressInfo).port;
    port = await freePort();
  });
  afterAll(async () => {
    await nginx?.stop();
    await new Promise((resolve) => app.close(resolve));
  });

  // nginx runs the site on a loopback port; lint reads it as published, on a public port (the rule
  // leaves loopback-only servers alone: only the host's own tunnel or gateway reaches them).
  const site = (headers: string, listen = 'listen 80;') => `
  server {
    ${listen}
    location / {
      proxy_pass http://127.0.0.1:${appPort};
      ${headers}
    }
  }`;
  const live = (headers: string) => site(headers, `listen 127.0.0.1:${port} default_server;`);
  const forged = async (): Promise<IncomingHttpHeaders> => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      headers: { 'X-Forwarded-For': '203.0.113.7', 'X-Real-IP': '203.0.113.7' },
    });
    return (await response.json()) as IncomingHttpHeaders;
  };

  it("tells the app the client's forged address as the truth, and the real one once fixed", async () => {
    // A CDN set-up copied to a server clients reach directly: their own headers passed on as their address.
    const found =
      'proxy_set_header X-Forwarded-For $http_x_forwarded_for; proxy_set_header X-Real-IP $http_x_real_ip;';
    expect(findings(site(found), 'client-ip-spoofable')).toEqual([
      'client-ip-spoofable warning',
      'client-ip-spoofable warning',
    ]);
    nginx = await startLiveNginx(live(found));
    const told = await forged();
    expect([told['x-forwarded-for'], told['x-real-ip']]).toEqual(['203.0.113.7', '203.0.113.7']);

    const fixed =
      'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; proxy_set_header X-Real-IP $remote_addr;';
    expect(findings(site(fixed), 'client-ip-spoofable')).toEqual([]);
    await nginx.reload(live(fixed));
    const real = await forged();
    // The claim is kept, but the address nginx saw comes last, where apps that trust one proxy read it.
    expect([real['x-forwarded-for'], real['x-real-ip']]).toEqual(['203.0.113.7, 127.0.0.1', '127.0.0.1']);
  });
});
