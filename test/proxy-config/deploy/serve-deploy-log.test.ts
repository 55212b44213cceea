import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StepReply, StepRequest } from '../../../proxy-config/core/apply/apply-steps-protocol.js';
import { serveDeploySteps } from '../../../proxy-config/deploy/serve-deploy-steps.js';

/** One deploy session with the far side, in this process: requests in, answers out, in order. */
function openSession(target: string, accessLog: string) {
  const requests: Array<StepRequest | undefined> = [];
  let feed: ((request: StepRequest | undefined) => void) | undefined;
  const answers: Array<(answer: StepReply) => void> = [];
  const next = () =>
    new Promise<StepRequest | undefined>((resolve) => {
      if (requests.length > 0) resolve(requests.shift());
      else feed = resolve;
    });
  const send = (request: StepRequest | undefined) => {
    if (feed) {
      const give = feed;
      feed = undefined;
      give(request);
    } else requests.push(request);
  };
  const held = new Promise<StepReply>((resolve) => answers.push(resolve));
  const served = serveDeploySteps(target, { step: 'hold', accessLog }, next, (a) => answers.shift()!(a));
  return {
    held,
    ask(request: StepRequest): Promise<StepReply> {
      const answer = new Promise<StepReply>((resolve) => answers.push(resolve));
      send(request);
      return answer;
    },
    end() {
      send(undefined);
      return served;
    },
  };
}

const lines = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `GET /seq/${from + i}\n`).join('');

describe("the far side's log step of a deploy across hosts, across rotation", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-serve-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps the session's reader between requests: a move + reopen and a copytruncate lose and repeat nothing", async () => {
    const log = join(dir, 'access.log');
    await writeFile(log, lines(0, 500));
    const session = openSession(join(dir, 'target'), log);
    expect(await session.held).toMatchObject({ ok: true, step: 'held' });
    const read = async (from: number) => {
      const answer = await session.ask({ step: 'log', from });
      if (!answer.ok || answer.step !== 'log') throw new Error(JSON.stringify(answer));
      return answer;
    };
    const start = await session.ask({ step: 'log' });
    if (!start.ok || start.step !== 'log') throw new Error(JSON.stringify(start));
    await appendFile(log, lines(500, 10));
    const first = await read(start.end);
    expect(first.text).toBe(lines(500, 10));
    // Moved away: nginx writes on to the old file until it reopens, then to a new, smaller one.
    await rename(log, `${log}.1`);
    await appendFile(`${log}.1`, lines(510, 5));
    const moved = await read(first.end);
    await writeFile(log, lines(515, 3));
    const reopened = await read(moved.end);
    expect(moved.text + reopened.text).toBe(lines(510, 8));
    // copytruncate: the file starts again at 0.
    await truncate(log, 0);
    await appendFile(log, lines(518, 4));
    const truncated = await read(reopened.end);
    expect(truncated.text).toBe(lines(518, 4));
    // A mark held from the start reads the whole stretch once.
    expect((await read(start.end)).text).toBe(lines(500, 22));
    await session.end();
  });
});
