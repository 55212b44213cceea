import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

describe('usage errors', () => {
  it('read like every other error (proxyops: ...), point at --help and exit 2', async () => {
    for (const [args, message] of [
      [['logs', 'stats', '--bogus'], "proxyops: unknown option '--bogus'"],
      [['config', 'render'], "proxyops: required option '--spec <file>' not specified"],
      [['nosuch'], "proxyops: unknown command 'nosuch'"],
    ] as const) {
      const result = await runCli([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(`${message}\n(run with --help for usage)\n`);
    }
  });
});
