import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

// The built entry point: its program object sets how commander reports usage errors.
const CLI = join(process.cwd(), 'dist', 'cli', 'main.js');

describe('usage errors', () => {
  it('read like every other error (proxyops: ...), point at --help and exit 2', async () => {
    for (const [args, message] of [
      [['logs', 'stats', '--bogus'], "proxyops: unknown option '--bogus'"],
      [['config', 'render'], "proxyops: required option '--spec <file>' not specified"],
      [['nosuch'], "proxyops: unknown command 'nosuch'"],
    ] as const) {
      const result = await execa('node', [CLI, ...args], { reject: false });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(`${message}\n(run with --help for usage)`);
    }
  });
});
