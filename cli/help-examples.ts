import type { Command } from 'commander';
import { invokedName } from './invoked-name.js';

/**
 * Examples shown at the end of each command's `--help`, keyed by the command's path. One table, so a
 * test can check that every command has some and that every option they use exists.
 */
export const HELP_EXAMPLES: Record<string, string[]> = {
  api: [
    'api --seed                              # http://127.0.0.1:8080, demo data, embedded database',
    'api --seed --data-dir .proxyops/db      # keep the embedded database on disk',
    'api --port 9090 --rate-limit 1200       # DATABASE_URL / REDIS_URL from the environment',
  ],
  'api token': [
    'api token --user 00000000-0000-4000-8000-000000000002',
    'api token --user ops --role admin --ttl 3600',
  ],
  'api openapi': ['api openapi', 'api openapi --out openapi.json'],
  'api graphql-manifest': ['api graphql-manifest --from graphql/ --out allow-list.json'],
  cert: ['cert check /etc/ssl/certs/site.pem', 'cert check --host example.com:443 --warn-days 14'],
  'cert check': [
    'cert check /etc/ssl/certs/site.pem',
    'cert check --host example.com:443 --host api.example.com:443 --json',
    'cert check --spec proxy.yaml',
  ],
  config: ['config validate --spec proxy.yaml', 'config apply --spec proxy.yaml --target /etc/proxyops'],
  'config render': ['config render --spec proxy.yaml', 'config render --spec proxy.yaml --out build/'],
  remote: ['remote steps --target /etc/proxyops   # started over ssh by config apply; not for people'],
  'remote steps': ['remote steps --target /etc/proxyops   # JSON lines on stdin and stdout'],
  'remote access-logs': [
    'remote access-logs --pid-file /run/nginx.pid   # started over ssh by logs stats --host',
  ],
  'config validate': [
    'config validate --spec proxy-config/examples/api-front.yaml',
    'config validate --spec adopt.yaml  # nginx.conf specs: lint and nginx -t of the hand-written tree',
  ],
  'config apply': [
    'config apply --spec proxy.yaml --target /etc/proxyops',
    'config apply --spec proxy.yaml --target /etc/proxyops --watch 30 --rollback-on-5xx 0.05',
    'config apply --spec proxy.yaml --target /etc/proxyops --servers-from state',
    'config apply --spec fleet.yaml     # every nginx host under proxies, over ssh, as one change',
    'config apply --spec hosts.yaml --tree etc-nginx/   # a hand-written tree to every host (nginx.conf specs)',
  ],
  'config diff': [
    'config diff --spec proxy.yaml --target /etc/proxyops',
    'config diff --spec proxy.yaml --target /etc/proxyops --servers-from state',
    'config diff --spec fleet.yaml      # each host under proxies against its live version',
    'config diff --spec hosts.yaml --tree etc-nginx/    # what that tree would change on each host',
    'config diff --spec adopt.yaml      # nginx.conf specs: what adopting the upstream blocks changes',
  ],
  'config history': [
    'config history --target /etc/proxyops',
    'config history --target /etc/proxyops --json',
    'config history --spec fleet.yaml   # every nginx host under proxies',
    'config history --spec adopt.yaml   # nginx.conf specs: every change to the hand-written tree',
  ],
  'config rollback': [
    'config rollback --target /etc/proxyops',
    'config rollback --target /etc/proxyops --to v0003',
    'config rollback --target /etc/proxyops --force',
    'config rollback --spec adopt.yaml  # nginx.conf specs: the last change to the hand-written tree undone',
    'config rollback --spec hosts.yaml  # nginx.conf specs: the last change undone on every host under proxies',
  ],
  'config lint': [
    'config lint /etc/nginx/nginx.conf',
    'config lint --conf-prefix /etc/nginx /etc/nginx/sites-enabled/app',
    'config lint --json nginx.conf',
  ],
  diagnose: [
    'diagnose 502 --access-log /var/log/nginx/access.log --error-log /var/log/nginx/error.log --config /etc/nginx/nginx.conf',
    'diagnose 413 --config /etc/nginx/nginx.conf --url https://example.com/upload',
    'diagnose disk',
    'diagnose 502 --host web1 --json   # on that host over ssh, with the proxyops there',
  ],
  logs: [
    'logs stats /var/log/nginx/access.log',
    'logs merge web1.state.json web2.state.json --json',
    'logs rotate --log /var/log/nginx/access.log --pid-file /run/nginx.pid',
  ],
  'logs stats': [
    'logs stats /var/log/nginx/access.log',
    'logs stats access.log access.log.1 access.log.2.gz --json',
    "logs stats access.log --since 15m --status 5xx,499 --fail-if '5xx_ratio>1%'",
    'logs stats --follow access.log --interval 10s',
    'logs stats access.log --html report.html',
    'logs stats --follow access.log --serve 127.0.0.1:9180',
    'logs stats access.log.1 --state-out web1.state.json',
    'logs stats --host web1 --host web2 --json   # each host reads its running nginx’s logs there',
    'logs stats --host web1 --host web2 /var/log/nginx/access.log.1.gz /var/log/nginx/access.log',
    'logs stats --follow access.log --metrics-listen 127.0.0.1:9145 --label host=web1',
    'logs stats --follow access.log --serve 127.0.0.1:9180 --metrics-listen 127.0.0.1:9180',
  ],
  'logs merge': [
    'logs merge web1.state.json web2.state.json',
    "logs merge /srv/stats/*.state.json --json --fail-if '5xx_ratio>1%'",
  ],
  'logs rotate': ['logs rotate --log /var/log/nginx/access.log --pid-file /run/nginx.pid --compress'],
  deploy: [
    'deploy plan --dir .proxyops',
    'deploy --dir .proxyops',
    'deploy --spec proxy.yaml --target /etc/proxyops --upstream api --json',
  ],
  'deploy check': [
    'deploy check k8s/deployment.yaml',
    'deploy check /etc/systemd/system/app@.service --interval 2 --threshold 3 --margin 1',
    'deploy check compose.yaml k8s/*.yaml --format json',
  ],
  maintenance: [
    'maintenance on --upstream api --retry-after 600     # the local stack in .proxyops',
    'maintenance off --upstream api',
    'maintenance on --spec proxy.yaml --target /etc/proxyops --upstream api',
  ],
  up: [
    'up',
    'up --instances 3 --port 8081 --dir /tmp/stack',
    'up --fresh',
    'up --log-max-size 64m --log-keep 5',
  ],
  down: ['down', 'down --dir /tmp/stack'],
};

/** The path of a command below the program: `config apply`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Every command below `program`, depth first. */
export function allCommands(program: Command): Command[] {
  return program.commands.flatMap((command) => [command, ...allCommands(command)]);
}

/** Appends each command's examples to its `--help`, written with the name proxyops was invoked by. */
export function addHelpExamples(program: Command): void {
  for (const command of allCommands(program)) {
    const examples = HELP_EXAMPLES[commandPath(command)];
    if (examples === undefined) continue;
    command.addHelpText('after', () => {
      const name = invokedName();
      return `\nExamples:\n${examples.map((example) => `  ${name} ${example}`).join('\n')}\n`;
    });
  }
}
