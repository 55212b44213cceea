/** What to do about each errno a person can fix, said once for every command. */
const ERRNO_ADVICE: Record<string, string> = {
  ENOSPC: 'no space left on the device: free some space there and run it again',
  EDQUOT: 'the disk quota is used up: free some space there and run it again',
  ENOENT: 'no such file or directory: check the path',
  EACCES: 'permission denied: run it as a user who may, or choose another path',
  EPERM: 'operation not permitted: run it as a user who may, or choose another path',
  EROFS: 'the file system is read-only: choose a writable path',
  ENOTDIR: 'a part of the path is not a directory: check the path',
  EISDIR: 'it is a directory, not a file: give a file',
  EMFILE: 'too many open files: raise the limit (ulimit -n) and run it again',
  EADDRINUSE: 'the address is already in use: stop what listens there, or choose another port',
  EADDRNOTAVAIL: 'the address is not on this machine: choose a local address',
  ECONNREFUSED: 'connection refused: start the service, or fix its address',
  ENOTFOUND: 'the host name does not resolve: fix the name',
  ETIMEDOUT: 'the connection timed out: check the address and the network',
  EHOSTUNREACH: 'the host is unreachable: check the address and the network',
};

/**
 * One line for an error from the operating system (a Node error with an errno `code`): what failed,
 * on what, and what to do. Undefined for anything else, which is a fault of ours.
 */
export function describeSystemError(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path, address, port } = error as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
  };
  const advice = code === undefined ? undefined : ERRNO_ADVICE[code];
  if (advice === undefined) return undefined;
  const where =
    path ?? (address === undefined ? undefined : port === undefined ? address : `${address}:${port}`);
  return `${syscall ?? 'system call'}${where === undefined ? '' : ` ${where}`} failed (${code}): ${advice}`;
}

/** True when the person asked for stack traces: `--debug`, or DEBUG naming proxyops (or `*`). */
export function debugEnabled(
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (argv.includes('--debug')) return true;
  return (env.DEBUG ?? '')
    .split(/[\s,]+/)
    .some((name) => name === 'proxyops' || name === '*' || name === 'proxyops:*');
}
