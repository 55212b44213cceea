import { checkRemoteProxyops } from '../shell/host/remote-proxyops.js';
import { createSshHost } from '../shell/host/ssh-host.js';

/** What a proxyops command printed on a host, and its exit code there. */
export interface RemoteRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `proxyops ARGS` on a host over ssh, with the proxyops there (its version checked first), for
 * the commands that read what only that host has: its processes, its logs, its nginx. Paths in ARGS
 * are that host's.
 */
export async function runProxyopsOn(destination: string, args: readonly string[]): Promise<RemoteRun> {
  const host = createSshHost(destination);
  try {
    await checkRemoteProxyops(host);
    return await host.run(['proxyops', ...args]);
  } finally {
    await host.close();
  }
}
