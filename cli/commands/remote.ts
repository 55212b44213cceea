import type { Command } from 'commander';
import type { StepRequest } from '../../proxy-config/core/apply/apply-steps-protocol.js';
import { isProxyopsError } from '../../proxy-config/core/errors.js';
import { describeSystemError } from '../describe-error.js';
import { runAction } from '../run-action.js';
import type { Extent } from './index.js';

/**
 * `proxyops remote steps --target DIR`: the far side of `config apply`, `config diff` and `deploy`
 * with `proxies`, started over ssh by the proxyops that drives the change; `remote access-logs`: what
 * `logs stats --host` reads there when given no file. Not for people: hidden from
 * --help. Requests and replies are JSON lines on stdin and stdout (apply-steps-protocol.ts).
 */
export function registerRemote(program: Command, extent: Extent = 'whole'): Command {
  const remote = program
    .command('remote', { hidden: true })
    .description('the far side of a change to several hosts (started over ssh)');
  if (extent === 'head') return remote;
  remote
    .command('steps')
    .requiredOption('--target <dir>', 'config directory on this host')
    .action((flags: { target: string }) =>
      runAction(async () => {
        const { createInterface } = await import('node:readline');
        const { serveApplySteps } = await import('../../proxy-config/config/serve-apply-steps.js');
        const { serveDeploySteps } = await import('../../proxy-config/deploy/serve-deploy-steps.js');
        const { isTreeRequest, serveTreeSteps } =
          await import('../../proxy-config/config/serve-tree-steps.js');
        const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
        // The near end gone (its stdin closed, ssh lost): a step under way is stopped where that is safe.
        const ended = new AbortController();
        input.once('close', () => ended.abort());
        const lines = input[Symbol.asyncIterator]();
        const next = async (): Promise<StepRequest | undefined> => {
          const line = await lines.next();
          return line.done ? undefined : (JSON.parse(line.value) as StepRequest);
        };
        // The near end gone (a lost connection) must not end this process before it undoes its part
        // and releases the locks: the listener of watchedStdout would exit on EPIPE.
        process.stdout.removeAllListeners('error').on('error', () => undefined);
        const reply = (answer: object) => process.stdout.write(`${JSON.stringify(answer)}\n`);
        try {
          const first = await next();
          if (first?.step === 'hold' || first?.step === 'status')
            await serveDeploySteps(flags.target, first, next, reply);
          else if (isTreeRequest(first)) await serveTreeSteps(flags.target, first, next, reply, ended.signal);
          else await serveApplySteps(flags.target, first, next, reply);
        } catch (error) {
          const message = isProxyopsError(error)
            ? error.message
            : (describeSystemError(error) ?? (error as Error).message);
          reply({ ok: false, error: { code: isProxyopsError(error) ? error.code : 'FAILED', message } });
        }
        // Its locks are released: what a stopped step left running (a read, nginx -t) ends with it.
        if (ended.signal.aborted) process.exit();
      }),
    );
  remote
    .command('access-logs')
    .description('the access logs the running nginx writes, as JSON (logs stats --host without files)')
    .option('--pid-file <file>', 'the nginx master, by its pid file (when several run)')
    .action((flags: { pidFile?: string }) =>
      runAction(async () => {
        const { findRunningAccessLogs } = await import('../../proxy-config/logs/running-access-logs.js');
        const accessLogs = await findRunningAccessLogs(flags.pidFile);
        process.stdout.write(`${JSON.stringify({ accessLogs })}\n`);
      }),
    );
  return remote;
}
