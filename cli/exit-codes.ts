/** Exit codes of every command: 0 done, 1 a finding or a failed operation, 2 bad input. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Error codes that mean the caller gave bad input; every other code exits with EXIT.failed. */
const USAGE_CODES = new Set([
  'USAGE',
  'SPEC_INVALID',
  'SPEC_UNREADABLE',
  'BAD_OPTION',
  'CERT_FILE_UNREADABLE',
  'CONFIG_INVALID',
  'LOG_FORMAT_INVALID',
  // nginx is not installed and cannot be installed from here: the message names the command.
  'NGINX_MISSING',
  // A dynamic module an option of the spec loads is not installed (the message names the package).
  'NGINX_MODULE_MISSING',
  // Most lines of a log match no format (the message names the closest one).
  'LOG_FORMAT_UNKNOWN',
  'LOG_UNREADABLE',
  // Nothing to count: every input an empty file (a live log just rotated, given alone).
  'LOG_EMPTY',
  'NGINX_CONFIG_UNREADABLE',
  'NGINX_CONFIG_INVALID',
  'SERVERS_DIFFER_FROM_STATE',
  'TARGET_MISSING',
  'TARGET_INVALID',
  'VERSION_NOT_FOUND',
  'OUTPUT_UNWRITABLE',
  'STATE_UNREADABLE',
  // `logs merge` of state files from another log format or another state version.
  'STATE_INCOMPATIBLE',
  // `logs rotate --pid-file` naming a live process that is not nginx (a stale or wrong file).
  'NOT_NGINX_MASTER',
  // The environment, not our code: a person fixes these (a busy port, a database that is down).
  'PORT_IN_USE',
  'LISTEN_FAILED',
  'DATABASE_UNREACHABLE',
  'NO_SPACE',
  // nginx's workers could not reach a socket, the temp or log directory (the message names the fix).
  'WORKERS_CANNOT_REACH',
  // ssh to a host: an unknown or changed host key, no key it accepts, a proxyops missing or of another
  // version there. The message names the fix.
  'SSH_HOST_KEY_UNKNOWN',
  'SSH_HOST_KEY_CHANGED',
  'SSH_AUTH_FAILED',
  'REMOTE_PROXYOPS_MISSING',
  'REMOTE_PROXYOPS_VERSION',
  // `logs stats --host`: the proxyops there refused its input (a log file missing there, a bad format).
  'REMOTE_BAD_INPUT',
  // `config apply --tree DIR`: DIR unreadable or without nginx.conf, or a link there that a host lacks
  // (proxyops writes files, never links; the message names the `ln -s`).
  'TREE_UNREADABLE',
  'TREE_LINK_DIFFERS',
  // The live nginx is not what a deploy or an apply assumes (another config, other servers), or
  // cannot be read: nothing was started, swapped or signalled; the message names the fix.
  'LIVE_NGINX_DIFFERS',
  'LIVE_NGINX_UNREADABLE',
  'MASTER_RUNS_OTHER_CONFIG',
  // A hand-written config proxyops cannot safely edit (issue 36): the message names the construct,
  // file:line and what would work instead; or a hand edit inside the lines it manages (drift).
  'ADOPT_REFUSED',
  'ADOPT_DRIFT',
  // A file of the tree edited between the plan and the write, a tree the test copy cannot follow, a
  // file that is not UTF-8: nothing was written (the message names the file).
  'TREE_CHANGED',
  'TREE_UNTESTABLE',
  'TREE_NOT_UTF8',
  // nginx -t on the copy could not open a file as the user proxyops runs as: not the change's fault.
  'NGINX_TEST_NOT_PERMITTED',
  // `deploy check` on a file that is not a manifest, unit or compose file it can read.
  'DEPLOY_CHECK_INPUT_INVALID',
  // A gated deploy watch that cannot see the new instance's requests (the message names the fix).
  'WATCH_BLIND',
]);

/** Maps an error code to the process exit code. */
export function exitCodeFor(code: string): number {
  return USAGE_CODES.has(code) ? EXIT.usage : EXIT.failed;
}
