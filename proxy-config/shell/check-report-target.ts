import { constants, fstat, type Stats, promises as fsp } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ProxyopsError } from '../core/errors.js';

/**
 * Checks where an output file (the --html report, or `flag`'s `noun` file) goes before the logs are
 * read, so a typo fails fast and as bad input.
 */
export async function assertWritableDir(file: string, flag = '--html', noun = 'report'): Promise<void> {
  const path = resolve(file);
  const dir = dirname(path);
  if (!(await fsp.stat(dir).catch(() => undefined))?.isDirectory())
    throw new ProxyopsError('BAD_OPTION', `${flag} ${file}: the directory ${dir} does not exist`);
  if ((await fsp.stat(path).catch(() => undefined))?.isDirectory())
    throw new ProxyopsError('BAD_OPTION', `${flag} ${file}: is a directory; name the ${noun} file`);
  await fsp.access(dir, constants.W_OK).catch(() => {
    throw new ProxyopsError('BAD_OPTION', `${flag} ${file}: the directory ${dir} is not writable`);
  });
}

/**
 * Refuses an --html target (or `flag`'s `noun` file) that is one of the inputs (also through a link, or
 * standard input redirected from it): the output would replace the input it was made from.
 */
export async function assertNotAnInput(
  file: string,
  inputs: string[],
  stdinFd: unknown,
  flag = '--html',
  noun = 'report',
): Promise<void> {
  const target = await fsp.stat(file).catch(() => undefined);
  const targetPath = await fsp.realpath(file).catch(() => resolve(file));
  for (const input of inputs) {
    let same: boolean;
    if (input === '-') {
      const info = target && typeof stdinFd === 'number' ? await fstatOf(stdinFd) : undefined;
      same = Boolean(target && info?.isFile() && info.dev === target.dev && info.ino === target.ino);
    } else {
      const info = await fsp.stat(input).catch(() => undefined);
      same =
        target && info
          ? info.dev === target.dev && info.ino === target.ino
          : (await fsp.realpath(input).catch(() => resolve(input))) === targetPath;
    }
    if (same)
      throw new ProxyopsError(
        'BAD_OPTION',
        `${flag} ${file} is the input ${input === '-' ? 'on standard input' : input}: the ${noun} would replace it`,
      );
  }
}

function fstatOf(fd: number): Promise<Stats | undefined> {
  return new Promise((done) => fstat(fd, (error, info) => done(error ? undefined : info)));
}
