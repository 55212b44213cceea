import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import {
  expectTopFinding,
  sourcesOf,
  startScriptedApp,
  waitForLines,
  type ScriptedApp,
} from './live-helpers.js';

describe('diagnose trailing-slash against a live nginx', () => {
  let nginx: LiveNginx | undefined;
  let app: ScriptedApp | undefined;
  afterEach(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('trailing-slash-mismatch: location /api/ with proxy_pass …/v1 forwards /v1users', async () => {
    app = await startScriptedApp((req, res) => {
      res.statusCode = req.url === '/v1/users' ? 200 : 404;
      res.end(`${req.url}\n`);
    });
    const port = await freePort();
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        location /api/ { proxy_pass http://127.0.0.1:${app.port}/v1; }
      }`);
    expect((await fetch(`http://127.0.0.1:${port}/api/users`)).status).toBe(404);
    await waitForLines(nginx.accessLog, 1);
    const evidence = expectTopFinding(
      await diagnose({ symptom: 'trailing-slash', ...sourcesOf(nginx) }),
      'trailing-slash-mismatch',
    );
    expect(evidence).toMatch(
      new RegExp(
        `location /api/ at .* proxies to http://127\\.0\\.0\\.1:${app.port}/v1: one ends in "/", the other does not`,
      ),
    );
  });
});
