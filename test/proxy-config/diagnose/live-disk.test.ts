import { rename, unlink } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { expectTopFinding, sourcesOf, waitForLines } from './live-helpers.js';

describe('diagnose disk against a live nginx', () => {
  let nginx: LiveNginx | undefined;
  afterEach(async () => {
    await nginx?.stop();
    nginx = undefined;
  });

  it('rotated-log-held-open: a log moved and deleted without USR1 stays open and keeps its space', async () => {
    const port = await freePort();
    nginx = await startLiveNginx(`server { listen 127.0.0.1:${port}; location / { return 200 "ok\\n"; } }`);
    for (let i = 0; i < 20; i++) await fetch(`http://127.0.0.1:${port}/some/page`);
    await waitForLines(nginx.accessLog, 20);
    const sources = sourcesOf(nginx);
    expect((await diagnose({ symptom: 'disk', ...sources })).findings).toEqual([]);

    // What a logrotate job without postrotate does: move, compress elsewhere, delete; no signal.
    await rename(nginx.accessLog, `${nginx.accessLog}.1`);
    await unlink(`${nginx.accessLog}.1`);
    for (let i = 0; i < 5; i++) await fetch(`http://127.0.0.1:${port}/more`);

    const result = await diagnose({ symptom: 'disk', errorLog: sources.errorLog, pidFile: sources.pidFile });
    const evidence = expectTopFinding(result, 'rotated-log-held-open');
    expect(evidence).toMatch(
      new RegExp(
        `nginx \\d+ fd \\d+ → ${nginx.accessLog.replaceAll('.', '\\.')}\\.1 \\(deleted\\), \\d+ bytes`,
      ),
    );
    expect(evidence).toMatch(/deleted file\(s\) still open under .*\/logs, holding \d+ bytes/);
  });
});
