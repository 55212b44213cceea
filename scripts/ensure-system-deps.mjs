// Makes sure the Debian packages the tests drive are installed: nginx (live proxy tests) and chromium
// (the HTML report test). Installs what is missing when running as root, otherwise names the command.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PACKAGES = [
  { name: 'nginx', candidates: ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'] },
  { name: 'chromium', candidates: ['/usr/bin/chromium'] },
];

const isInstalled = (pkg) => pkg.candidates.some((p) => existsSync(p));
const missing = PACKAGES.filter((pkg) => !isInstalled(pkg));

if (missing.length > 0) {
  const names = missing.map((pkg) => pkg.name);
  if (process.getuid?.() === 0) {
    console.error(
      `proxyops: ${names.join(', ')} missing; installing (apt-get install -y ${names.join(' ')})`,
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...names], { stdio: 'inherit', env });
  }
  const still = PACKAGES.filter((pkg) => !isInstalled(pkg)).map((pkg) => pkg.name);
  if (still.length > 0) {
    console.error(
      `proxyops: ${still.join(', ')} missing; install with: sudo apt-get install -y ${still.join(' ')}`,
    );
    process.exit(1);
  }
}
