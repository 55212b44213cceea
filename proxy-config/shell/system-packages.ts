import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ProxyopsError } from '../core/errors.js';
import { NJS_MODULE } from '../core/render/nginx-modules.js';
import { DEFAULTS } from '../core/spec/defaults.js';

/** A Debian package proxyops drives, and where its binary lands. */
export interface SystemPackage {
  name: string;
  candidates: string[];
}

/**
 * The packages: nginx (the proxy itself), its njs module (loaded by configs whose routes cache),
 * chromium (only the HTML report test uses it), prometheus (only the tests of `logs stats`'s metrics
 * use it: the server scrapes them, and its promtool checks the text), the OpenSSH client (the
 * transport to the nginx hosts of a spec's `proxies`) and server (the test hosts run it),
 * supervisor (the deploy-hook tests run app instances as its programs), nftables (a blue/green
 * deploy refuses nginx's new connections to the old instance before it stops; see docs/deploys.md), and
 * strace (only a refusal test uses it, to hold a new nginx worker at the moment before it drops to its user).
 */
export const SYSTEM_PACKAGES: Record<
  | 'nginx'
  | 'njs'
  | 'chromium'
  | 'prometheus'
  | 'sshClient'
  | 'sshServer'
  | 'supervisor'
  | 'nftables'
  | 'strace',
  SystemPackage
> = {
  nginx: { name: 'nginx', candidates: ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'] },
  njs: { name: NJS_MODULE.package, candidates: [`${DEFAULTS.paths.modulesDir}/${NJS_MODULE.file}`] },
  chromium: { name: 'chromium', candidates: ['/usr/bin/chromium'] },
  prometheus: { name: 'prometheus', candidates: ['/usr/bin/prometheus'] },
  sshClient: { name: 'openssh-client', candidates: ['/usr/bin/ssh'] },
  sshServer: { name: 'openssh-server', candidates: ['/usr/sbin/sshd'] },
  supervisor: { name: 'supervisor', candidates: ['/usr/bin/supervisord'] },
  nftables: { name: 'nftables', candidates: ['/usr/sbin/nft'] },
  strace: { name: 'strace', candidates: ['/usr/bin/strace'] },
};

/** What to do about missing packages: nothing, install them (root on Debian), or tell the exact command. */
export type PackagePlan =
  | { kind: 'none' }
  | { kind: 'install'; names: string[]; commands: string[][] }
  | { kind: 'tell'; names: string[]; command: string };

/** Plans the install of `missing` packages: apt-get as root on Debian, else the command for the user to run. */
export function planPackageInstall(
  missing: readonly string[],
  host: { root: boolean; apt: boolean },
): PackagePlan {
  if (missing.length === 0) return { kind: 'none' };
  const names = [...missing];
  if (host.root && host.apt)
    return {
      kind: 'install',
      names,
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', ...names],
      ],
    };
  const apt = `apt-get install -y ${names.join(' ')}`;
  return { kind: 'tell', names, command: host.root ? apt : `sudo ${apt}` };
}

/** True when the package's binary is on this machine. */
export function isInstalled(pkg: SystemPackage): boolean {
  return pkg.candidates.some((path) => existsSync(path));
}

/**
 * Installs the missing packages when it can (root on Debian: `apt-get install -y`, said through
 * `say` first), else throws NGINX_MISSING with the exact command to run.
 */
export function ensureSystemPackages(packages: readonly SystemPackage[], say: (line: string) => void): void {
  const missing = packages.filter((pkg) => !isInstalled(pkg)).map((pkg) => pkg.name);
  const plan = planPackageInstall(missing, {
    root: process.getuid?.() === 0,
    apt: existsSync('/usr/bin/apt-get') && existsSync('/etc/debian_version'),
  });
  if (plan.kind === 'none') return;
  if (plan.kind === 'tell')
    throw new ProxyopsError(
      'NGINX_MISSING',
      `${plan.names.join(', ')} not installed; install with: ${plan.command}`,
    );
  say(`${plan.names.join(', ')} not installed; installing: apt-get install -y ${plan.names.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    for (const [file, ...args] of plan.commands)
      execFileSync(file!, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
  } catch (error) {
    throw new ProxyopsError(
      'NGINX_MISSING',
      `apt-get install -y ${plan.names.join(' ')} failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const still = packages.filter((pkg) => !isInstalled(pkg)).map((pkg) => pkg.name);
  if (still.length > 0)
    throw new ProxyopsError('NGINX_MISSING', `${still.join(', ')} still missing after apt-get install`);
}
