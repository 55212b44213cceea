import type { Command } from 'commander';
import { isProxyopsError, ProxyopsError } from '../../proxy-config/core/errors.js';
import type { WatchMode } from '../../proxy-config/core/deploy/watch-sight.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { runAction } from '../run-action.js';

interface DeployFlags {
  spec?: string;
  target?: string;
  dir?: string;
  upstream?: string;
  json?: boolean;
  env: string[];
  max4xxIncrease?: string;
  maxP99Ratio?: string;
  canary?: string;
  watch?: string;
  minRequests?: string;
  maxWatch?: string;
  version?: string;
  replace?: string;
  with?: string;
  batch?: string;
  maxFail?: string;
}

function fraction(flag: string, raw: string | undefined, max: number): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'off') return null;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > max)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${flag} ${JSON.stringify(raw)} must be a number from 0 to ${max}, or off`,
    );
  return value;
}

/** `--watch`, `--min-requests` and `--max-watch` as the plan's settings (the spec's where not given). */
function watchFlags(flags: DeployFlags): { watchMode?: WatchMode; minRequests?: number; maxWatch?: number } {
  // Written out: the watch's module (log format compiler) is loaded only when a deploy runs.
  const modes: WatchMode[] = ['gates', 'readiness-only'];
  if (flags.watch !== undefined && !modes.includes(flags.watch as WatchMode))
    throw new ProxyopsError(
      'BAD_OPTION',
      `--watch ${JSON.stringify(flags.watch)} must be gates or readiness-only`,
    );
  const minRequests = flags.minRequests === undefined ? undefined : Number(flags.minRequests);
  if (
    minRequests !== undefined &&
    (!Number.isInteger(minRequests) || minRequests < 1 || minRequests > 1_000_000)
  )
    throw new ProxyopsError(
      'BAD_OPTION',
      `--min-requests ${JSON.stringify(flags.minRequests)} must be a whole number from 1 to 1000000`,
    );
  const maxWatch = flags.maxWatch === undefined ? undefined : Number(flags.maxWatch);
  if (maxWatch !== undefined && (flags.maxWatch!.trim() === '' || !(maxWatch >= 0 && maxWatch <= 3600)))
    throw new ProxyopsError(
      'BAD_OPTION',
      `--max-watch ${JSON.stringify(flags.maxWatch)} must be a number of seconds from 0 to 3600`,
    );
  return {
    ...(flags.watch === undefined ? {} : { watchMode: flags.watch as WatchMode }),
    ...(minRequests === undefined ? {} : { minRequests }),
    ...(maxWatch === undefined ? {} : { maxWatch }),
  };
}

/** `proxyops deploy` and `proxyops deploy plan`: rolling replacement of an upstream's instances. */
export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description(
      'Replace the instances of an upstream one at a time: start, wait until ready, add, watch, take the old one out, drain, stop. ' +
        'Instances are proxyops children (deploy.command) or run by systemd, supervisord, Docker or a script (the start/stop hooks); ' +
        "a blue/green pair (a server's alternate) changes no nginx config. " +
        '`deploy plan` prints every step with its computed wait and changes nothing. ' +
        "Before the first step the live nginx is read (nginx -T of the master behind the spec's pid file): " +
        "it must run the --target's current config, its upstream listing exactly the instances and alternates the plan assumes; " +
        'otherwise nothing starts (exit 2): apply the spec first (proxyops config apply --spec S --target DIR) and run nginx with -c DIR/current/nginx.conf. ' +
        'It is read again after every switch; a difference then rolls the round back. ' +
        "Behind a hand-written config (a spec with nginx.conf; --target is then proxyops' state dir): the master must run nginx.conf, the upstream be adopted (config apply --spec S) with no hand edit inside its managed lines, and every instance take the alternate path. " +
        'Exit 0 deployed, 1 aborted (rolled back), 2 bad input or a live nginx that differs',
    )
    .argument(
      '[plan|status|rollback]',
      '"plan": print the plan only; "status" (with proxies in --spec): how each nginx host and instance stands; "rollback": deploy the release recorded before the current one',
    )
    .option('--spec <file>', 'proxy spec whose upstream has a deploy section (default: the local stack)')
    .option(
      '--target <dir>',
      "config target of proxyops config apply (with --spec); the nginx behind the spec's pid file must run its current config. With nginx.conf in the spec: proxyops' state dir (default nginx.state)",
    )
    .option('--dir <dir>', 'directory of the local stack started by proxyops up', '.proxyops')
    .option('--upstream <name>', 'the upstream pool to roll (default: the one with a deploy section)')
    .option(
      '--env <NAME=VALUE>',
      'change an API setting of the new instances (e.g. PROXYOPS_RATE_LIMIT=1200), repeatable; shown in the plan, recorded for the stack only when the deploy succeeds',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option(
      '--max-4xx-increase <fraction>',
      'roll back when the 4xx share (429, 401/403, 404, ...) rises by more than this over the one before the deploy, or off',
      '0.05',
    )
    .option(
      '--max-p99-ratio <ratio>',
      "roll back when the new instance's median request time exceeds this multiple of the other instances' (or of the log before the deploy) and a Mann-Whitney U test finds it slower (p < 0.001); its first 100 requests (more while its latency still falls) are left out as its warm-up, then 2 slices of 50 are judged (with fewer than 200 request times: not judged, not failed); medians under 10 ms count as 10 ms; or off",
      '2.5',
    )
    .option(
      '--canary <seconds>',
      'watch the first new instance this long before going on; across hosts, every instance of the first host goes first, alone',
    )
    .option(
      '--watch <mode>',
      "gates: judge the new instance's own requests in the access log (the spec's deploy.watchMode, default gates); readiness-only: only that it stays alive and ready, for a log the watch cannot read (named on every verdict)",
    )
    .option(
      '--min-requests <N>',
      'requests the new instance must answer before the gates may call it good (deploy.minRequests, default 20)',
    )
    .option(
      '--max-watch <seconds>',
      'with fewer, the watch goes on up to this long, then the round is rolled back and the deploy stops: could not judge (deploy.maxWatch, default 60)',
    )
    .option('--batch <N|P%>', 'replace N instances (or P% of them) at a time (alternate and slot paths)')
    .option('--max-fail <N>', 'instances that may fail (each put back) before the rest is called off', '0')
    .option(
      '--version <version>',
      'the version to deploy: fills {version} in deploy.command and the start/stop/ready hooks (required when they name it)',
    )
    .option(
      '--replace <host:port>',
      'hand over: the instance whose traffic moves to --with (with --spec, --target, --upstream); it is drained, its stop hook run, then reported idle',
    )
    .option('--with <host:port>', 'hand over: the instance, already running, that takes over from --replace')
    .option('--json', 'one JSON event per line')
    .action((what: string | undefined, flags: DeployFlags) =>
      runAction(async () => {
        if (what !== undefined && !['plan', 'status', 'rollback'].includes(what))
          throw new ProxyopsError('USAGE', `deploy ${what}: unknown; did you mean deploy plan?`);
        if (what === 'status') {
          if (flags.spec === undefined)
            throw new ProxyopsError('BAD_OPTION', 'deploy status needs --spec FILE listing proxies');
          const { showFleetStatus } = await import('../format-fleet-status.js');
          return showFleetStatus(flags.spec, flags.upstream, Boolean(flags.json));
        }
        const { resolveDeployTarget } = await import('../../proxy-config/deploy/deploy-context.js');
        const { formatDeployEvent, formatDeployPlan } = await import('../format-deploy.js');
        const { parseApiSettings } = await import('../parse-api-settings.js');
        if ((flags.replace === undefined) !== (flags.with === undefined))
          throw new ProxyopsError('BAD_OPTION', '--replace and --with go together: --replace OLD --with NEW');
        const { replace, with: given, ...rest } = flags;
        const { parseBatchOption } = await import('../../proxy-config/core/deploy/plan-batches.js');
        const maxFail = Number(flags.maxFail ?? '0');
        if (!Number.isInteger(maxFail) || maxFail < 0)
          throw new ProxyopsError(
            'BAD_OPTION',
            `--max-fail ${JSON.stringify(flags.maxFail)} must be a whole number, 0 or more`,
          );
        const where = await resolveDeployTarget({
          ...rest,
          ...(what === 'rollback' ? { rollback: true } : {}),
          batches: {
            ...(flags.batch === undefined ? {} : { batch: parseBatchOption(flags.batch) }),
            canary: flags.canary !== undefined,
            maxFail,
          },
          ...(replace === undefined ? {} : { handOver: { replace, with: given! } }),
          envChanges: parseApiSettings('--env', flags.env),
          watch: {
            gates: {
              max4xxIncrease: fraction('--max-4xx-increase', flags.max4xxIncrease, 1)!,
              maxP99Ratio: fraction('--max-p99-ratio', flags.maxP99Ratio, 1000)!,
            },
            ...(flags.canary === undefined ? {} : { canary: fraction('--canary', flags.canary, 3600)! }),
            ...watchFlags(flags),
          },
        });
        if (what === 'rollback' && flags.version !== undefined)
          throw new ProxyopsError(
            'BAD_OPTION',
            'deploy rollback takes the release recorded before: leave out --version',
          );
        if (what === 'plan') {
          // The plan is a picture of nginx: say when the nginx that runs is not that one (on every host).
          const { planWithLook } = await import('../../proxy-config/deploy/deploy.js');
          const { plan, refused } = await planWithLook(where);
          process.stdout.write(
            flags.json
              ? `${JSON.stringify({ type: 'plan', plan, ...(refused ? { refused } : {}) })}\n`
              : `${formatDeployPlan(plan)}${(refused?.split('\n') ?? []).map((line) => `refused now: ${line}\n`).join('')}`,
          );
          return EXIT.ok;
        }
        const { deploy } = await import('../../proxy-config/deploy/deploy.js');
        // Ctrl-C, `proxyops down` or SIGTERM (a service manager, `timeout`, `kill`): finish the step
        // under way, then put the round back as it was and exit 1. A second one must not kill the
        // deploy half-way through putting it back.
        const interrupt = new AbortController();
        const onInterrupt = (signal: NodeJS.Signals) => {
          if (!flags.json && !interrupt.signal.aborted)
            process.stdout.write(`interrupted (${signal}): rolling this round back after the current step\n`);
          interrupt.abort();
        };
        process.on('SIGINT', onInterrupt);
        process.on('SIGTERM', onInterrupt);
        let planned = false;
        const report = await deploy(
          where,
          (event) => {
            planned ||= event.type === 'plan';
            // A refusal's plan event is for --json readers: people get the one line on stderr.
            if (flags.json) process.stdout.write(`${JSON.stringify({ ts: Date.now(), ...event })}\n`);
            else if (event.type !== 'plan' || event.refused === undefined)
              process.stdout.write(formatDeployEvent(event));
          },
          interrupt.signal,
        ).catch((error: unknown) => {
          // Refused before a plan could be made (no adoption, a bad spec): --json still says why.
          if (flags.json && !planned && isProxyopsError(error) && exitCodeFor(error.code) === EXIT.usage)
            process.stdout.write(
              `${JSON.stringify({ ts: Date.now(), type: 'plan', refused: error.message })}\n`,
            );
          throw error;
        });
        return report.outcome === 'deployed' ? EXIT.ok : EXIT.failed;
      }),
    );
}
