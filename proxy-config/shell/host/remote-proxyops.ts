import { ProxyopsError } from '../../core/errors.js';
import { PROXYOPS_VERSION } from '../../core/version.js';
import type { Host, RunResult } from './host.js';

/**
 * Checks that the `proxyops` on the host's PATH is this one's version, before any work runs there:
 * both ends then speak the same step protocol. REMOTE_PROXYOPS_MISSING or REMOTE_PROXYOPS_VERSION,
 * one line naming the host and how to install the right one.
 */
export async function checkRemoteProxyops(host: Host): Promise<void> {
  const result = await host.run(['proxyops', '--version']);
  const install =
    `install proxyops ${PROXYOPS_VERSION} there (in a checkout of that release: npm ci && npm link) ` +
    `so that \`ssh ${host.name} proxyops --version\` prints ${PROXYOPS_VERSION}`;
  if (result.exitCode === 127)
    throw new ProxyopsError(
      'REMOTE_PROXYOPS_MISSING',
      `${host.name}: proxyops is not on the PATH; ${install}`,
    );
  const version = result.stdout.trim();
  if (result.exitCode !== 0 || version !== PROXYOPS_VERSION)
    throw new ProxyopsError(
      'REMOTE_PROXYOPS_VERSION',
      `${host.name} runs proxyops ${version || `that fails (exit ${result.exitCode})`}, this is ${PROXYOPS_VERSION}; ${install}`,
    );
}

/** Hosts whose proxyops was found to be this version: the next command on the same host needs no check. */
const checked = new WeakSet<Host>();

/**
 * Runs `proxyops ARGS` on the host, with the proxyops there (its version checked before the first
 * command on that host), for the commands that read what only that host has: its processes, its logs,
 * its nginx. Paths in ARGS are that host's. Resolves whatever the exit code; the caller judges it.
 */
export async function runProxyopsOn(host: Host, args: readonly string[]): Promise<RunResult> {
  if (!checked.has(host)) {
    await checkRemoteProxyops(host);
    checked.add(host);
  }
  return host.run(['proxyops', ...args]);
}
