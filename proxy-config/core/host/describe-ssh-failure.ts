/** Where ssh would connect, from `ssh -G DEST` (the user's config applied). */
export interface SshDestination {
  hostname: string;
  port: number;
  /** The first known_hosts file ssh reads for that host. */
  knownHostsFile: string;
  /** The ssh config proxyops reads instead of ~/.ssh/config (PROXYOPS_SSH_CONFIG): a command named to the user needs it too. */
  configFile?: string;
}

/** One kind of ssh failure a person acts on, and its code. */
interface SshFailureRow {
  code: string;
  test: RegExp;
  message: (host: string, where: SshDestination) => string;
}

/** ssh's own failures (its exit 255), tried in order; the first whose pattern matches ssh's stderr names it. */
export const SSH_FAILURES: readonly SshFailureRow[] = [
  {
    code: 'SSH_HOST_KEY_CHANGED',
    test: /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/,
    message: (host, where) =>
      `${host}: its host key differs from the one in ${where.knownHostsFile}; nothing was done. If the host was ` +
      `reinstalled, remove the old key with: ssh-keygen -R ${knownHostsName(where)} -f ${where.knownHostsFile}`,
  },
  {
    code: 'SSH_HOST_KEY_UNKNOWN',
    test: /host key is known for|Host key verification failed/,
    message: (host, where) =>
      `${host}: its host key is not in ${where.knownHostsFile}; nothing was done. Check the key and add it with: ` +
      `ssh-keyscan${where.port === 22 ? '' : ` -p ${where.port}`} ${where.hostname} >> ${where.knownHostsFile} ` +
      `(or connect once with: ssh ${where.configFile ? `-F ${where.configFile} ` : ''}${host})`,
  },
  {
    code: 'SSH_AUTH_FAILED',
    test: /Permission denied \(/,
    message: (host) =>
      `${host}: ssh could not log in (no key it accepts; proxyops never asks for a password): load the key in ` +
      `ssh-agent or name it with IdentityFile in ~/.ssh/config`,
  },
  {
    code: 'HOST_UNREACHABLE',
    test: /Could not resolve hostname/,
    message: (host) => `${host}: ssh cannot resolve that name; add a Host entry to ~/.ssh/config or fix DNS`,
  },
  {
    code: 'HOST_UNREACHABLE',
    test: /Connection refused|timed out|No route to host|Network is unreachable|not responding|closed by remote host|Connection reset|Broken pipe|Connection closed/,
    message: (host, where) =>
      `${host}: lost or unreachable over ssh (${where.hostname} port ${where.port}): check that it runs and its sshd answers`,
  },
];

/** The row that names an ssh failure, from what ssh printed; undefined when none does. */
export function matchSshFailure(stderr: string): SshFailureRow | undefined {
  return SSH_FAILURES.find((row) => row.test.test(stderr));
}

/** The key `ssh-keygen -R` looks for: `[host]:port` when the port is not 22. */
function knownHostsName(where: SshDestination): string {
  return where.port === 22 ? where.hostname : `[${where.hostname}]:${where.port}`;
}

/** Reads hostname, port and the first known_hosts file from `ssh -G` output. */
export function parseSshConfigDump(text: string): SshDestination {
  const value = (key: string) =>
    text
      .split('\n')
      .find((line) => line.startsWith(`${key} `))
      ?.slice(key.length + 1)
      .trim();
  return {
    hostname: value('hostname') ?? '',
    port: Number(value('port') ?? 22),
    knownHostsFile: value('userknownhostsfile')?.split(' ')[0] ?? '~/.ssh/known_hosts',
  };
}
