import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteShellWord, toShellCommand } from '../../../../proxy-config/core/host/quote-shell.js';

/** What a real shell makes of a command line: each argument printf gets, NUL-separated. */
function wordsSeenBy(shell: string, words: string[]): string[] {
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${toShellCommand(words)}`]).toString();
  return out.split('\0').slice(0, -1);
}

const word = fc.string({ unit: 'binary', minLength: 0, maxLength: 24 }).filter((s) => !s.includes('\0'));

describe('toShellCommand', () => {
  for (const shell of ['/bin/sh', '/bin/bash']) {
    it(`${shell} reads back exactly the words it was given`, () => {
      fc.assert(
        fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
          expect(wordsSeenBy(shell, words)).toEqual(words);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('leaves plain words bare and quotes every word a shell would read', () => {
    expect(toShellCommand(['proxyops', '--version', '/etc/proxyops'])).toBe(
      'proxyops --version /etc/proxyops',
    );
    for (const hostile of ['$(touch /tmp/pwned)', '`id`', 'a;b', "it's", 'a\nb', '*', '~', 'a b', '>x', '!'])
      expect(quoteShellWord(hostile)).toMatch(/^'.*'$/s);
  });

  it('refuses a NUL, which no argument can carry', () => {
    expect(() => quoteShellWord('a\0b')).toThrow(/NUL/);
    expect(() => toShellCommand([])).toThrow(/no command/);
  });
});
