import { existsSync } from 'node:fs';
import { ProxyopsError } from '../../core/errors.js';

const CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'];

/** Path of the nginx binary: $PROXYOPS_NGINX, else the Debian location; a clear error when absent. */
export function findNginxBinary(): string {
  const fromEnv = process.env.PROXYOPS_NGINX;
  if (fromEnv) return fromEnv;
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found)
    throw new ProxyopsError(
      'NGINX_MISSING',
      'nginx is not installed; install it with: sudo apt-get install -y nginx',
    );
  return found;
}
