import { ProxyopsError } from '../core/errors.js';
import { parseNginxVersion, type NginxIdentity } from '../core/nginx-config/nginx-identity.js';
import { createLocalHost } from '../shell/host/local-host.js';
import { createSshHost } from '../shell/host/ssh-host.js';
import { readNginxIdentity } from '../shell/nginx/read-nginx-identity.js';

/**
 * The nginx `config lint` judges against: `--nginx-version` as given (CI away from the server),
 * else the one that will run the config, read with `nginx -V` on `--host` over SSH or on this
 * machine (the running master's binary, else the installed one).
 */
export async function findLintNginx(options: {
  nginxVersion?: string;
  host?: string;
}): Promise<NginxIdentity> {
  if (options.nginxVersion !== undefined) {
    if (!parseNginxVersion(options.nginxVersion))
      throw new ProxyopsError(
        'BAD_OPTION',
        `--nginx-version ${JSON.stringify(options.nginxVersion)} is not an nginx version such as 1.26.2 (three numbers, no leading zeros)`,
      );
    return { version: options.nginxVersion, source: 'given with --nginx-version' };
  }
  const host = options.host !== undefined ? createSshHost(options.host) : createLocalHost();
  try {
    return await readNginxIdentity(host);
  } finally {
    await host.close();
  }
}
