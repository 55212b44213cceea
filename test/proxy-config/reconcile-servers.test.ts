import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySpecDefaults } from '../../proxy-config/core/spec/apply-spec-defaults.js';
import { reconcileServers } from '../../proxy-config/config/reconcile-servers.js';

describe('reconcileServers --servers-from spec', () => {
  let target: string;
  beforeEach(async () => {
    target = await mkdtemp(join(tmpdir(), 'proxyops-reconcile-'));
  });
  afterEach(() => rm(target, { recursive: true, force: true }));

  it('an instance the spec names with IPv6 brackets keeps its pid and stays in the upstream', async () => {
    await writeFile(
      join(target, 'instances.json'),
      JSON.stringify({
        version: 1,
        upstreams: { api: [{ host: '::1', port: 4001, pid: 999_999, inUpstream: true }] },
      }),
    );
    const spec = applySpecDefaults({
      version: 1,
      upstreams: {
        api: {
          servers: [
            { host: '[::1]', port: 4001 },
            { host: '[::1]', port: 4002 },
          ],
        },
      },
      servers: [{ names: ['a.test'], listen: [{ port: 18080 }], routes: [{ path: '/', upstream: 'api' }] }],
    });
    const said: string[] = [];
    const reconciled = await reconcileServers(spec, target, 'spec', (line) => said.push(line));
    await reconciled.record();
    const state = JSON.parse(await readFile(join(target, 'instances.json'), 'utf8'));
    expect(state.upstreams.api).toEqual([
      { host: '[::1]', port: 4001, pid: 999_999, inUpstream: true },
      { host: '[::1]', port: 4002, inUpstream: true },
    ]);
    expect(said).toEqual([]);
  });

  it('names the pool’s own stop signal for an instance that leaves the upstream', async () => {
    await writeFile(
      join(target, 'instances.json'),
      JSON.stringify({
        version: 1,
        upstreams: { api: [{ host: '127.0.0.1', port: 4001, pid: 999_999, inUpstream: true }] },
      }),
    );
    const spec = applySpecDefaults({
      version: 1,
      upstreams: {
        api: {
          servers: [{ host: '127.0.0.1', port: 3001 }],
          deploy: {
            command: ['node', 'app.js'],
            stopSignal: 'SIGTERM',
            drainMode: 'reload',
            readyTimeout: 30,
            stopTimeout: 10,
            watchMode: 'gates',
            minRequests: 20,
            maxWatch: 60,
            watch: 5,
            max5xxIncrease: null,
            max5xxShare: null,
          },
        },
      },
      servers: [{ names: ['a.test'], listen: [{ port: 18080 }], routes: [{ path: '/', upstream: 'api' }] }],
    });
    const said: string[] = [];
    await (await reconcileServers(spec, target, 'spec', (line) => said.push(line))).record();
    expect(said).toEqual([
      '127.0.0.1:4001 (pid 999999) left upstream api but still runs; stop it with kill -TERM 999999',
    ]);
  });
});
