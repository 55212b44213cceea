import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** One test host: a network namespace with its own address, its own directory and a real sshd. */
export interface TestHost {
  /** The ssh alias (`ssh NAME` reaches it through the config file). */
  name: string;
  address: string;
  netns: string;
  /** The root-namespace end of its veth pair. */
  link: string;
  /** Its own directory as this test sees it; on the host it is `mountPoint`. */
  dir: string;
  /** Where the host sees its own directory (the same path on every host, different files). */
  mountPoint: string;
  sshd?: ChildProcess;
}

/** A set of test hosts and the ssh client files that reach them. */
export interface TestHosts {
  root: string;
  hosts: Map<string, TestHost>;
  /** The ssh client config (what ~/.ssh/config would hold); give it to proxyops as PROXYOPS_SSH_CONFIG. */
  sshConfig: string;
  knownHosts: string;
  /** The environment a proxyops run needs to reach the hosts. */
  env: Record<string, string>;
  host(name: string): TestHost;
  /** Adds a host's key to known_hosts, as `ssh-keyscan ADDRESS >> known_hosts` would. */
  trust(name: string): void;
  /** Runs a command on the host (its network and mount namespaces) without SSH, as a test's own hand. */
  exec(name: string, argv: string[]): string;
  /** Starts a long-running process on the host without SSH; killed at teardown. */
  spawnOn(name: string, argv: string[]): ChildProcess;
  /** Makes a host unreachable: its sshd stopped (refused at once) or its link down (hangs until timeouts). */
  lose(name: string, how: 'sshd' | 'link'): Promise<void>;
  teardown(): Promise<void>;
}

const SSHD = '/usr/sbin/sshd';
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * Starts one sshd per name, each in a fresh network namespace on 198.19.X.0/24 (X random, not in
 * use here) and a mount namespace where `mountPoint` is that host's own directory. The remote PATH
 * starts with a bin directory whose `proxyops` runs `cli` (this checkout's dist/cli/main.js). Host keys are
 * not trusted until `trust` (or `trusted: true`).
 */
export async function startTestHosts(
  names: string[],
  options: {
    trusted?: boolean;
    /** The proxyops the hosts run (default: this checkout's dist/cli/main.js). */
    cli?: string;
    /**
     * The hosts reach each other (an nginx host its app hosts): each routes the set's /24 through
     * this machine, which forwards between their links only (per-link forwarding, not ip_forward).
     */
    routed?: boolean;
  } = {},
): Promise<TestHosts> {
  const id = randomBytes(3).toString('hex');
  const root = await mkdtemp(join(tmpdir(), `proxyops-hosts-${id}-`));
  const mountPoint = `/srv/proxyops-host-${id}`;
  await mkdir(mountPoint, { recursive: true });
  await mkdir('/run/sshd', { recursive: true });
  const subnet = pickSubnet();
  const bin = join(root, 'bin');
  await mkdir(bin);
  await writeFile(
    join(bin, 'proxyops'),
    `#!/bin/sh\nexec ${process.execPath} ${options.cli ?? join(REPO, 'dist/cli/main.js')} "$@"\n`,
  );
  await chmod(join(bin, 'proxyops'), 0o755);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(root, 'id')]);
  execFileSync('cp', [join(root, 'id.pub'), join(root, 'authorized_keys')]);
  const sshConfig = join(root, 'ssh_config');
  const knownHosts = join(root, 'known_hosts');
  await writeFile(knownHosts, '');
  await writeFile(sshConfig, '');

  const hosts = new Map<string, TestHost>();
  const spawned: ChildProcess[] = [];
  const set: TestHosts = {
    root,
    hosts,
    sshConfig,
    knownHosts,
    env: { PROXYOPS_SSH_CONFIG: sshConfig },
    host(name) {
      const found = hosts.get(name);
      if (!found) throw new Error(`no test host ${name}`);
      return found;
    },
    trust(name) {
      const { address } = set.host(name);
      const keys = execFileSync('ssh-keyscan', ['-t', 'ed25519', address], {
        stdio: ['ignore', 'pipe', 'ignore'],
      }).toString();
      execFileSync('sh', ['-c', 'cat >> "$1"', 'sh', knownHosts], { input: keys });
    },
    exec(name, argv) {
      return execFileSync('nsenter', ['-t', String(pidOf(set.host(name))), '-m', '-n', '--', ...argv], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    },
    spawnOn(name, argv) {
      const child = spawn('nsenter', ['-t', String(pidOf(set.host(name))), '-m', '-n', '--', ...argv], {
        stdio: 'ignore',
      });
      spawned.push(child);
      return child;
    },
    async lose(name, how) {
      const host = set.host(name);
      if (how === 'link') {
        execFileSync('ip', ['link', 'set', host.link, 'down']);
        return;
      }
      await stopSshd(host);
      // The connections already open (a ControlMaster's) have sshd processes of their own.
      for (const pid of netnsPids(host)) if (commandName(pid) === 'sshd') process.kill(pid, 'SIGKILL');
    },
    async teardown() {
      for (const child of spawned) child.kill('SIGKILL');
      for (const host of hosts.values()) {
        await stopSshd(host);
        // What the tests started there over SSH (nginx daemonizes) outlives the sshd.
        for (const pid of netnsPids(host)) process.kill(pid, 'SIGKILL');
        execFileSync('ip', ['netns', 'del', host.netns], { stdio: 'ignore' });
      }
      await rm(mountPoint, { recursive: true, force: true });
      await rm(root, { recursive: true, force: true });
    },
  };

  try {
    for (const [index, name] of names.entries()) {
      const host = await startHost(root, id, name, index, subnet, mountPoint);
      hosts.set(name, host);
      await appendFile(
        sshConfig,
        [
          `Host ${name}`,
          `  HostName ${host.address}`,
          '  User root',
          `  IdentityFile ${join(root, 'id')}`,
          '  IdentitiesOnly yes',
          `  UserKnownHostsFile ${knownHosts}`,
          '  ConnectTimeout 3',
          '',
        ].join('\n'),
      );
      if (options.trusted) set.trust(name);
    }
    if (options.routed)
      for (const host of hosts.values()) {
        const here = host.address.replace(/\d+$/, (last) => String(Number(last) - 1));
        execFileSync('sysctl', ['-qw', `net.ipv4.conf.${host.link}.forwarding=1`]);
        execFileSync('ip', [
          'netns',
          'exec',
          host.netns,
          'ip',
          'route',
          'add',
          `198.19.${subnet}.0/24`,
          'via',
          here,
        ]);
      }
  } catch (error) {
    await set.teardown();
    throw error;
  }
  return set;
}

/** A 198.19.X.0/24 no interface here uses, X random: other test runs on this machine pick their own. */
function pickSubnet(): number {
  const used = execFileSync('ip', ['-4', '-o', 'addr']).toString();
  for (;;) {
    const x = randomBytes(1)[0]!;
    if (!used.includes(`198.19.${x}.`)) return x;
  }
}

async function startHost(
  root: string,
  id: string,
  name: string,
  index: number,
  subnet: number,
  mountPoint: string,
): Promise<TestHost> {
  const netns = `pxh-${id}-${index}`;
  const link = `vpx${id}${index}`;
  // One /30 per host: its own point-to-point link, so the routes of the hosts do not overlap.
  const here = `198.19.${subnet}.${index * 4 + 1}`;
  const address = `198.19.${subnet}.${index * 4 + 2}`;
  const dir = join(root, 'hosts', name);
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  ip('netns', 'add', netns);
  const host: TestHost = { name, address, netns, link, dir, mountPoint };
  ip('link', 'add', link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns);
  ip('addr', 'add', `${here}/30`, 'dev', link);
  ip('link', 'set', link, 'up');
  ip('netns', 'exec', netns, 'ip', 'addr', 'add', `${address}/30`, 'dev', 'eth0');
  ip('netns', 'exec', netns, 'ip', 'link', 'set', 'eth0', 'up');
  ip('netns', 'exec', netns, 'ip', 'link', 'set', 'lo', 'up');

  const emptyRc = join(root, 'bashrc');
  await writeFile(emptyRc, '');
  const hostKey = join(root, `hostkey-${name}`);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  const conf = join(root, `sshd-${name}.conf`);
  await writeFile(
    conf,
    [
      `ListenAddress ${address}`,
      `HostKey ${hostKey}`,
      `PidFile ${join(root, `sshd-${name}.pid`)}`,
      `AuthorizedKeysFile ${join(root, 'authorized_keys')}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      // Many sessions at once over one multiplexed connection (a fleet step opens several).
      'MaxSessions 50',
      'MaxStartups 50',
      `SetEnv PATH=${join(root, 'bin')}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
      '',
    ].join('\n'),
  );
  host.sshd = spawn(
    'ip',
    [
      'netns',
      'exec',
      netns,
      'unshare',
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      // Its own login scripts too: bash sources ~/.bashrc for every ssh command, and this machine's
      // (a pyenv init here) cost 0.5 s and a hundred processes per session, a host apart has none.
      'mount --bind "$1" "$2" && { [ ! -e "$5" ] || mount --bind "$6" "$5"; } && exec "$3" -D -e -f "$4"',
      'sh',
      dir,
      mountPoint,
      SSHD,
      conf,
      join(homedir(), '.bashrc'),
      emptyRc,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  host.sshd.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-2000)));
  await waitForPort(address, 22, () => (host.sshd?.exitCode === null ? undefined : log));
  return host;
}

/** The pid of the host's sshd: every exec in the chain kept it, and it sits in the host's namespaces. */
function pidOf(host: TestHost): number {
  const pid = host.sshd?.pid;
  if (pid === undefined || host.sshd?.exitCode !== null)
    throw new Error(`the sshd of ${host.name} is not running`);
  return pid;
}

function netnsPids(host: TestHost): number[] {
  const out = execFileSync('ip', ['netns', 'pids', host.netns]).toString();
  return out.split('\n').filter(Boolean).map(Number);
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

async function stopSshd(host: TestHost): Promise<void> {
  const sshd = host.sshd;
  if (!sshd || sshd.exitCode !== null || sshd.signalCode !== null) return;
  const exited = new Promise((done) => sshd.once('exit', done));
  sshd.kill('SIGTERM');
  await exited;
}

async function waitForPort(address: string, port: number, failed: () => string | undefined): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const why = failed();
    if (why !== undefined) throw new Error(`sshd on ${address} exited: ${why}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect({ host: address, port }, () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`sshd on ${address}:${port} did not start`);
    await sleep(50);
  }
}
