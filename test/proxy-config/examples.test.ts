import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readSpecFile } from '../../proxy-config/shell/read-spec-file.js';
import { renderSpec } from '../../proxy-config/config/render-config.js';
import { checkSpecInTempPrefix, validateConfigFile } from '../../proxy-config/config/validate-config.js';
import { makeCertificate } from './helpers/make-certificate.js';

const EXAMPLES = join(import.meta.dirname, '../../proxy-config/examples');
const SCHEMA = join(import.meta.dirname, '../../proxy-config/schema/proxy-spec.schema.json');
const names = (await readdir(EXAMPLES)).filter((n) => n.endsWith('.yaml')).sort();

describe('example specs', () => {
  let certDir: string;
  let cert: { certificate: string; certificateKey: string };

  beforeAll(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'proxyops-certs-'));
    await chmod(certDir, 0o755);
    cert = await makeCertificate(certDir, 'example.com', 30);
  });
  afterAll(() => rm(certDir, { recursive: true, force: true }));

  it('include one fronting the proxyops API with health checks, one with TLS and one container mode', async () => {
    expect(names).toEqual(expect.arrayContaining(['api-front.yaml', 'tls-static.yaml', 'container.yaml']));
    const api = await readSpecFile(join(EXAMPLES, 'api-front.yaml'));
    expect(api.upstreams.api?.servers[0]).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(api.upstreams.api?.healthCheck.readinessPath).toBe('/health/ready');
  });

  it('internet-site.yaml sets every server and route field of the schema and every internet option', async () => {
    interface Node {
      properties: Record<string, Node>;
      items: Node;
    }
    const schema = JSON.parse(await readFile(SCHEMA, 'utf8')) as Node & { definitions: { server: Node } };
    const server = schema.definitions.server;
    const example = parse(await readFile(join(EXAMPLES, 'internet-site.yaml'), 'utf8')) as {
      servers: Array<Record<string, unknown> & { routes: Array<Record<string, unknown>> }>;
    };
    const setOnServers = new Set(example.servers.flatMap((s) => Object.keys(s)));
    const setOnRoutes = new Set(example.servers.flatMap((s) => s.routes.flatMap((r) => Object.keys(r))));
    expect(Object.keys(server.properties).filter((field) => !setOnServers.has(field))).toEqual([]);
    expect(
      Object.keys(server.properties.routes!.items.properties).filter((field) => !setOnRoutes.has(field)),
    ).toEqual([]);
    const internetOptions = ['unknownHosts', 'security', 'gzip', 'trustedProxies', 'resolver', 'cache'];
    expect(internetOptions.filter((field) => !(field in example))).toEqual([]);
  });

  it('the TLS example shows HSTS, which its render sends from the TLS server', async () => {
    const spec = await readSpecFile(join(EXAMPLES, 'tls-static.yaml'));
    expect(spec.security.hsts).toMatchObject({ maxAge: 31536000 });
    const conf = (await renderSpec(spec))['nginx.conf']!;
    expect(conf).toContain('add_header Strict-Transport-Security "max-age=31536000" always;');
  });

  it.each(names)('%s renders deterministically and passes nginx -t', async (name) => {
    const spec = await readSpecFile(join(EXAMPLES, name));
    // The TLS example names certificates under /etc/ssl; nginx -t must load real ones.
    for (const server of spec.servers) if (server.tls) server.tls = cert;
    expect(await renderSpec(spec)).toEqual(await renderSpec(spec));
    await expect(checkSpecInTempPrefix(spec)).resolves.toMatchObject({ lint: { counts: { error: 0 } } });
  });

  it('shows nginx own message when nginx -t fails, with the failing rendered line when it names one', async () => {
    const missingCert = await validateConfigFile(join(EXAMPLES, 'tls-static.yaml')).catch((e: unknown) => e);
    expect(missingCert).toMatchObject({ code: 'NGINX_TEST_FAILED' });
    expect((missingCert as Error).message).toMatch(
      /\[emerg\] cannot load certificate "\/etc\/ssl\/proxyops\/example\.com\.crt"/,
    );

    // Two default servers on one port pass the schema; only nginx itself can refuse them.
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-spec-'));
    const specPath = join(dir, 'spec.yaml');
    const server = (name: string) => ({
      names: [name],
      listen: [{ port: 8080, defaultServer: true }],
      routes: [{ path: '/', upstream: 'app' }],
    });
    await writeFile(
      specPath,
      JSON.stringify({
        version: 1,
        upstreams: { app: { servers: [{ host: '127.0.0.1', port: 3000 }] } },
        servers: [server('a.example'), server('b.example')],
      }),
    );
    const duplicate = await validateConfigFile(specPath).catch((e: unknown) => e);
    await rm(dir, { recursive: true, force: true });
    expect((duplicate as Error).message).toMatch(
      /\[emerg\] a duplicate default server for 0\.0\.0\.0:8080 in nginx\.conf:(\d+)\n\s+\1 \| listen 8080 default_server;/,
    );
  });
});
