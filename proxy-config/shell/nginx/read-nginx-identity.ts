import { parseNginxV, type NginxIdentity } from '../../core/nginx-config/nginx-identity.js';
import type { Host } from '../host/host.js';

/**
 * One POSIX sh run on the host: the binary of the running nginx master (the lowest pid; its
 * /proc/PID/exe, else the path in its process title), else the first nginx on the PATH or in the
 * usual sbin directories; then its `nginx -V` and, when dpkg knows the file, its package's version.
 * Sections are marked so that no output of nginx can be taken for another.
 */
const SCRIPT = `
how=''; bin=''
pids=$(grep -a -l '^nginx: master process ' /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 | sort -n)
masters=$(echo "$pids" | grep -c .)
pid=$(echo "$pids" | head -n1)
if [ -n "$pid" ]; then
  bin=$(readlink /proc/$pid/exe 2>/dev/null) || bin=$(tr '\\0' ' ' < /proc/$pid/cmdline | cut -d' ' -f4)
fi
if [ -n "$pid" ]; then how=master
else
  bin=$(command -v nginx 2>/dev/null)
  for c in /usr/sbin/nginx /usr/local/sbin/nginx /usr/bin/nginx; do [ -z "$bin" ] && [ -x "$c" ] && bin=$c; done
  [ -n "$bin" ] && how=installed
fi
echo "how=$how"; echo "pid=$pid"; echo "masters=$masters"; echo "bin=$bin"; echo "machine=$(uname -m)"
[ -n "$bin" ] || exit 0
echo '--- nginx -V'; "$bin" -V 2>&1
echo '--- dpkg'
pkg=$(dpkg-query -S "$bin" 2>/dev/null | head -n1 | cut -d: -f1)
[ -n "$pkg" ] && dpkg-query -W -f='\${Version}\\n' "$pkg" 2>/dev/null
exit 0
`;

/** The nginx that will run a config on `host`: what `nginx -V` (and dpkg) say of the binary found there. */
export async function readNginxIdentity(host: Host): Promise<NginxIdentity> {
  const where = host.name === 'this machine' ? 'on this machine' : `on ${host.name}`;
  const result = await host.run(['sh', '-c', SCRIPT]);
  const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1] ?? '';
  const bin = field('bin');
  if (!bin) return { source: `no nginx running or installed ${where}` };
  const [, v = '', dpkg = ''] = result.stdout.split(/^--- (?:nginx -V|dpkg)$/m);
  const { version, configure } = parseNginxV(v);
  const masters = Number(field('masters'));
  const source =
    field('how') === 'master'
      ? `running master pid ${field('pid')} (${bin})${masters > 1 ? ` of ${masters} masters` : ''} ${where}`
      : `nginx installed at ${bin} ${where} (none running)`;
  const debianVersion = dpkg.trim().split('\n')[0] || undefined;
  if (!version) return { source: `${source}: nginx -V printed no version` };
  const machine = field('machine') || undefined;
  return {
    version,
    source,
    configure,
    ...(debianVersion ? { debianVersion } : {}),
    ...(machine ? { machine } : {}),
  };
}
