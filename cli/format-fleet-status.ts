import { ProxyopsError } from '../proxy-config/core/errors.js';
import { pickUpstream } from '../proxy-config/deploy/deploy-context.js';
import { readFleetStatus, type ProxyStatus } from '../proxy-config/deploy/fleet-status.js';
import { readSpecFile } from '../proxy-config/shell/read-spec-file.js';
import { EXIT } from './exit-codes.js';

/**
 * `deploy status --spec S`: each nginx host's live version, the instances it records and a deploy
 * holding it, or why it cannot be reached; then each instance's readiness, and any instance
 * listening at an address of the spec no host records. Exit 0 when every host answers, none is
 * held, they agree and nothing strays; 1 otherwise.
 */
export async function showFleetStatus(
  specPath: string,
  wanted: string | undefined,
  json: boolean,
): Promise<number> {
  const spec = await readSpecFile(specPath);
  if (spec.proxies.length === 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${specPath} has no proxies: deploy status is for a deploy across hosts`,
    );
  const upstream = pickUpstream(spec, wanted);
  const status = await readFleetStatus(spec, upstream);
  const answered = status.proxies.filter(
    (p): p is Extract<ProxyStatus, { instances: string[] }> => 'instances' in p,
  );
  const agree = new Set(answered.map((p) => p.instances.join(','))).size <= 1;
  const settled =
    answered.length === status.proxies.length &&
    agree &&
    answered.every((p) => !p.deploy) &&
    status.strays.length === 0;
  // A hand-written tree has no rendered version live: its history's last change is what it holds.
  const version = (live: string | undefined) =>
    spec.nginx ? `last change ${live ?? 'none recorded'}` : `live ${live ?? 'none'}`;
  if (json) process.stdout.write(`${JSON.stringify({ upstream, agree, ...status })}\n`);
  else {
    const lines = status.proxies.map((p) =>
      'error' in p
        ? `${p.host}: unreachable: ${p.error}`
        : `${p.host}: ${version(p.live)}; upstream ${upstream} serves ${p.instances.join(', ') || 'nothing recorded'}` +
          (p.deploy
            ? `; a deploy (pid ${p.deploy.pid}) holds it, at round ${p.deploy.round} step ${p.deploy.step} (${p.deploy.kind})`
            : '; no deploy running'),
    );
    lines.push(
      answered.length === 0
        ? 'no nginx host answered'
        : agree
          ? `the nginx hosts that answered agree (${answered.map((p) => p.host).join(', ')})`
          : `the nginx hosts that answered record different instances (a host lost mid-deploy keeps the record of that round): the next deploy takes the record of ${spec.proxies[0]!.ssh}, the first under proxies, checks every host's live nginx against it before any step, and records it on every host`,
      ...status.instances.map(
        (i) =>
          `  ${i.address}${i.ssh ? ` on ${i.ssh}` : ''}: ${i.status === 200 ? 'ready' : i.status === 0 ? 'not answering' : `readiness ${i.status}`}`,
      ),
      ...status.strays.map(
        (i) =>
          `  ${i.address}${i.ssh ? ` on ${i.ssh}` : ''}: accepts connections, but no nginx host records it as serving (the new instance of a round a killed deploy left, or an old one left running): nginx may send it requests; stop it if it should not serve`,
      ),
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return settled ? EXIT.ok : EXIT.failed;
}
