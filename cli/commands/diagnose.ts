import type { Command } from 'commander';
import type { DiagnoseOptions } from '../../proxy-config/diagnose/diagnose.js';
import { runAction } from '../run-action.js';

/** Options of `proxyops diagnose`, as commander hands them over: the workflow's sources, --json and --host. */
type DiagnoseFlags = Omit<DiagnoseOptions, 'symptom' | 'now'> & { json?: boolean; host?: string };

/** Registers `proxyops diagnose SYMPTOM`: ranked findings for 413/502/504/499 and the §7.3 patterns. */
export function registerDiagnose(program: Command): void {
  program
    .command('diagnose')
    .description(
      'Find the likely causes of 413, 502, 504, 499, redirect-loop, stale-html, disk or trailing-slash',
    )
    .argument('<symptom>', '413 | 502 | 504 | 499 | redirect-loop | stale-html | disk | trailing-slash')
    .option(
      '--access-log <file>',
      'access log to read, .gz too (default: the logs the running nginx writes; format found by itself)',
    )
    .option('--error-log <file>', 'nginx error log to classify')
    .option('--config <file>', 'nginx config to read (body limits, timeouts, keep-alive, forwarded headers)')
    .option('--spec <file>', 'proxyops spec to render and read instead of --config')
    .option('--url <url>', 'live URL to probe with GET and HEAD (Server header, Location, Cache-Control)')
    .option('--probe-writes', 'let --url probes send request bodies (POST) to find 413 body limits')
    .option(
      '--since <time>',
      'only log entries at or after: 15m (ago), ISO 8601 or time_local; rotated logs are read back this far',
    )
    .option('--until <time>', 'only log entries before this time (same forms as --since)')
    .option('--pid-file <file>', 'the nginx master to diagnose, by its pid file (when several run)')
    .option('--insecure', 'accept self-signed certificates when probing')
    .option('--json', 'print findings as JSON')
    .option('--host <ssh>', 'diagnose on that host over ssh, with the proxyops there (paths are that host’s)')
    .action((symptom: string, flags: DiagnoseFlags) =>
      runAction(async () => {
        if (flags.host !== undefined) return diagnoseOnHost(flags.host, symptom, flags);
        const { parseSymptom } = await import('../../proxy-config/core/diagnose/symptoms.js');
        const { diagnose } = await import('../../proxy-config/diagnose/diagnose.js');
        const { renderFindings } = await import('../../proxy-config/core/diagnose/render-findings.js');
        const { EXIT } = await import('../exit-codes.js');
        const { withInvokedName } = await import('../invoked-name.js');
        const result = await diagnose({ ...flags, symptom: parseSymptom(symptom) });
        process.stdout.write(
          flags.json
            ? `${JSON.stringify({ symptom: result.symptom, sources: result.sources, findings: result.findings }, null, 2)}\n`
            : withInvokedName(renderFindings(result.symptom, result.findings, result.sources)),
        );
        return result.findings.length > 0 ? EXIT.failed : EXIT.ok;
      }),
    );
}

/** `diagnose --host`: the same command run by the proxyops on that host, its output and exit code passed on. */
async function diagnoseOnHost(destination: string, symptom: string, flags: DiagnoseFlags): Promise<number> {
  const { runProxyopsOn } = await import('../../proxy-config/shell/host/remote-proxyops.js');
  const { createSshHost } = await import('../../proxy-config/shell/host/ssh-host.js');
  const { timeOptionForHost } = await import('../../proxy-config/core/logs/parse-time-option.js');
  const args = ['diagnose', symptom];
  const nowMs = Date.now();
  for (const [name, value] of Object.entries(flags)) {
    if (name === 'host' || value === undefined || value === false) continue;
    const option = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    const text =
      name === 'since' || name === 'until' ? timeOptionForHost(String(value), option, nowMs) : String(value);
    args.push(...(value === true ? [option] : [option, text]));
  }
  const host = createSshHost(destination);
  const result = await runProxyopsOn(host, args).finally(() => host.close());
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  return result.exitCode;
}
