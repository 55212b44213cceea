import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

describe('output into a pipe the reader closed early (proxyops ... | head)', () => {
  it('stops quietly with exit 0 instead of an EPIPE stack trace', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    const child = spawn(process.execPath, [CLI, 'api', 'openapi'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // Read one chunk, then close the pipe as `head -c` does; the rest of the document cannot be written.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled 'error'/);
    expect(code).toBe(0);
  });
});
