// Makes sure the Debian packages the tests drive are installed: nginx (live proxy tests), its njs
// module (the response-cache tests), chromium (the HTML report test), prometheus with its promtool
// (the tests of the access-log metrics), OpenSSH's client and server (the tests of several hosts
// start their own sshd), supervisor (the deploy-hook tests start their own supervisord) and nftables
// (blue/green deploys refuse nginx's connections to the old instance), strace (a refusal test holds a
// new nginx worker before it drops to its user). The same code as `proxyops up` (proxy-config/shell/system-packages.ts):
// installs what is missing when running as root on Debian, otherwise names the command.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/proxy-config/shell/system-packages.js', import.meta.url);
if (!existsSync(built))
  execFileSync('node', [fileURLToPath(new URL('build-if-changed.mjs', import.meta.url))], {
    stdio: 'inherit',
  });
const { SYSTEM_PACKAGES, ensureSystemPackages } = await import(built.href);

try {
  ensureSystemPackages(Object.values(SYSTEM_PACKAGES), (line) => console.error(`proxyops: ${line}`));
} catch (error) {
  console.error(`proxyops: ${error.message}`);
  process.exit(1);
}
