import { createInterface } from 'node:readline';
import type { StepReply, StepRequest } from '../../core/apply/apply-steps-protocol.js';
import { ProxyopsError } from '../../core/errors.js';
import type { Host } from './host.js';

/** A successful reply of the far side. */
export type StepAnswer = Extract<StepReply, { ok: true }>;

/** The near end of `proxyops remote steps` on one host: one request, one reply, in turn. */
export interface StepSession {
  host: Host;
  target: string;
  /** Sends a request and waits for its reply; a failure there or a lost host rejects with one line naming the host. */
  request(request: StepRequest): Promise<StepAnswer>;
  /** Ends the session (the far side undoes whatever was not finished) and waits for it to exit. */
  end(): Promise<void>;
}

/** Starts the far side's step server for `target` on `host` (its proxyops checked beforehand). */
export function openStepSession(host: Host, target: string): StepSession {
  const session = host.open(['proxyops', 'remote', 'steps', '--target', target]);
  const replies = createInterface({ input: session.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
  // Observed here so that a lost host is never an unhandled rejection between two requests.
  const ended = session.done.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  session.stdin.on('error', () => undefined);
  return {
    host,
    target,
    async request(request) {
      session.stdin.write(`${JSON.stringify(request)}\n`);
      const line = await replies.next();
      if (line.done) {
        const end = await ended;
        if ('error' in end) throw end.error;
        const why = end.result.stderr.trim().split('\n').at(-1);
        // ssh's 255 with nothing said: its control connection went away under it (a link down), or
        // the far proxyops was killed by a signal; ssh cannot tell which.
        if (!why && end.result.exitCode === 255)
          throw new ProxyopsError(
            'HOST_UNREACHABLE',
            `${host.name}: lost or unreachable over ssh, or proxyops there was killed (it ended without answering ${request.step}; ssh exit 255)`,
          );
        throw new ProxyopsError(
          'REMOTE_STEP_FAILED',
          `${host.name}: proxyops there ended without answering ${request.step}: ${why || `exit ${end.result.exitCode}`}`,
        );
      }
      const reply = JSON.parse(line.value) as StepReply;
      // The host answered: it is there, only this request failed.
      if (!reply.ok)
        throw new ProxyopsError(reply.error.code, `${host.name}: ${reply.error.message}`, {
          details: { answered: true },
        });
      return reply;
    },
    async end() {
      session.stdin.end();
      await ended;
    },
  };
}
