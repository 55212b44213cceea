import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PROXYOPS_VERSION, PROBE_HEADERS } from '../../../proxy-config/core/version.js';
import { NJS_MODULE } from '../../../proxy-config/core/render/nginx-modules.js';
import { DEFAULTS } from '../../../proxy-config/core/spec/defaults.js';
import {
  isInstalled,
  planPackageInstall,
  SYSTEM_PACKAGES,
} from '../../../proxy-config/shell/system-packages.js';

describe('installing nginx on a fresh machine (proxyops up, npm test)', () => {
  it('as root on Debian: apt-get update, then apt-get install -y', () => {
    expect(planPackageInstall(['nginx'], { root: true, apt: true })).toEqual({
      kind: 'install',
      names: ['nginx'],
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', 'nginx'],
      ],
    });
  });

  it('otherwise the exact command to run, with sudo when not root', () => {
    expect(planPackageInstall(['nginx'], { root: false, apt: true })).toEqual({
      kind: 'tell',
      names: ['nginx'],
      command: 'sudo apt-get install -y nginx',
    });
    expect(planPackageInstall(['nginx', 'chromium'], { root: true, apt: false })).toMatchObject({
      kind: 'tell',
      command: 'apt-get install -y nginx chromium',
    });
    expect(planPackageInstall([], { root: false, apt: false })).toEqual({ kind: 'none' });
  });

  it('the njs package is the one a caching spec loads, from where the render loads it, and is installed here', () => {
    expect(SYSTEM_PACKAGES.njs).toEqual({
      name: 'libnginx-mod-http-js',
      candidates: [`${DEFAULTS.paths.modulesDir}/${NJS_MODULE.file}`],
    });
    // The test set-up (scripts/ensure-system-deps.mjs) installs every package: the cache tests need it.
    expect(isInstalled(SYSTEM_PACKAGES.njs)).toBe(true);
  });

  it('probes name the release package.json names', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(PROXYOPS_VERSION).toBe(pkg.version);
    expect(PROBE_HEADERS['user-agent']).toBe(`proxyops-probe/${pkg.version}`);
  });
});
