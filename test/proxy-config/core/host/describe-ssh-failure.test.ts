import { describe, expect, it } from 'vitest';
import {
  matchSshFailure,
  parseSshConfigDump,
} from '../../../../proxy-config/core/host/describe-ssh-failure.js';

const where = { hostname: '10.0.1.3', port: 2222, knownHostsFile: '/home/ops/.ssh/known_hosts' };

describe('ssh failures', () => {
  it.each([
    [
      'No ED25519 host key is known for [10.0.1.3]:2222 and you have requested strict checking.\nHost key verification failed.',
      'SSH_HOST_KEY_UNKNOWN',
    ],
    [
      '@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.',
      'SSH_HOST_KEY_CHANGED',
    ],
    ['root@10.0.1.3: Permission denied (publickey).', 'SSH_AUTH_FAILED'],
    ['ssh: Could not resolve hostname web9: Name or service not known', 'HOST_UNREACHABLE'],
    ['ssh: connect to host 10.0.1.3 port 2222: Connection refused', 'HOST_UNREACHABLE'],
    ['Timeout, server 10.0.1.3 not responding.', 'HOST_UNREACHABLE'],
  ])('names %j as %s', (stderr, code) => {
    expect(matchSshFailure(stderr)?.code).toBe(code);
  });

  it('leaves what ssh did not say alone (a command that failed on its own)', () => {
    expect(matchSshFailure('cat: /etc/x: No such file or directory')).toBeUndefined();
  });

  it('names the fix with the port and the known_hosts file ssh reads', () => {
    const unknown = matchSshFailure('Host key verification failed.')!;
    expect(unknown.message('web3', where)).toContain(
      'ssh-keyscan -p 2222 10.0.1.3 >> /home/ops/.ssh/known_hosts (or connect once with: ssh web3)',
    );
    // With PROXYOPS_SSH_CONFIG, plain `ssh web3` would read another config (another address, known_hosts).
    expect(unknown.message('web3', { ...where, configFile: '/etc/proxyops/ssh_config' })).toContain(
      '(or connect once with: ssh -F /etc/proxyops/ssh_config web3)',
    );
    const changed = matchSshFailure('REMOTE HOST IDENTIFICATION HAS CHANGED')!;
    expect(changed.message('web3', where)).toContain(
      'ssh-keygen -R [10.0.1.3]:2222 -f /home/ops/.ssh/known_hosts',
    );
  });

  it('reads hostname, port and the first known_hosts file from ssh -G', () => {
    const dump =
      'user root\nhostname 198.19.4.2\nport 22\nuserknownhostsfile /tmp/k /tmp/k2\nconnecttimeout none\n';
    expect(parseSshConfigDump(dump)).toEqual({ hostname: '198.19.4.2', port: 22, knownHostsFile: '/tmp/k' });
  });
});
