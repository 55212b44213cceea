import { ProxyopsError } from '../errors.js';

/** Characters a word may hold and stay itself unquoted in every POSIX shell. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One word for a POSIX shell (sh, dash, bash, zsh): as it is when it holds nothing the shell reads,
 * else in single quotes, where the shell reads nothing (a `'` closes the quote, is escaped, reopens).
 * A NUL cannot travel in an argument: BAD_OPTION.
 */
export function quoteShellWord(word: string): string {
  if (word.includes('\0'))
    throw new ProxyopsError('BAD_OPTION', `an argument holds a NUL byte: ${JSON.stringify(word)}`);
  if (PLAIN.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line ssh hands the remote user's shell for `argv`: every word quoted, so no file name
 * or label can start a command there. ssh joins its arguments with spaces and the remote shell
 * splits them again; one string quoted here is the only safe way through.
 */
export function toShellCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new ProxyopsError('BAD_OPTION', 'no command to run');
  return argv.map(quoteShellWord).join(' ');
}
