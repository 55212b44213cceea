import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { DiagnoseOptions, DiagnoseResult } from '../../../proxy-config/diagnose/diagnose.js';
import type { LiveNginx } from '../../support/live-nginx.js';

/** A loopback HTTP server whose every answer the test writes. */
export interface ScriptedApp {
  port: number;
  close(): Promise<void>;
}

/** Starts a loopback HTTP server answering with `handler`. */
export function startScriptedApp(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<ScriptedApp> {
  const server: Server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Every source a live nginx offers to `diagnose`: its logs, its config and its pid file. */
export function sourcesOf(nginx: LiveNginx): Omit<DiagnoseOptions, 'symptom'> {
  return {
    accessLog: nginx.accessLog,
    errorLog: nginx.errorLog,
    config: nginx.target.confPath,
    pidFile: join(nginx.prefix, 'nginx.pid'),
  };
}

/** Waits (bounded) until a log holds at least `count` lines; nginx writes access lines after answering. */
export async function waitForLines(file: string, count: number, timeoutMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    if (lines.length >= count || Date.now() > deadline) return lines;
    await sleep(25);
  }
}

/** Asserts that `id` is the top finding and returns its evidence as one text. */
export function expectTopFinding(result: DiagnoseResult, id: string): string {
  expect(result.findings.map((finding) => finding.id)[0], JSON.stringify(result.findings, null, 1)).toBe(id);
  const top = result.findings[0];
  expect(top?.rank).toBe(1);
  expect(top?.evidence.length).toBeGreaterThan(0);
  return top?.evidence.join('\n') ?? '';
}
