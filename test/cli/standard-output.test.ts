import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { plainStdoutOutput } from '../../cli/standard-output.js';
import { BUILT_CLI } from '../support/built-cli.js';

/** A stand-in for fs.writeSync on fd 1: takes at most `room` bytes a call, then throws `then`. */
function fd1(room: number[], then?: string) {
  const taken: string[] = [];
  const write = (bytes: Uint8Array, offset: number) => {
    const size = room.shift();
    if (size === undefined) throw Object.assign(new Error(then), { code: then });
    taken.push(Buffer.from(bytes.subarray(offset, offset + size)).toString());
    return size;
  };
  return { taken, write };
}

describe('help and version written to a stdout that is no terminal', () => {
  it('writes the whole text, whatever each write takes', () => {
    const { taken, write } = fd1([3, 1, 100]);
    plainStdoutOutput(write).writeOut!('Usage: proxyops\n');
    expect(taken.join('')).toBe('Usage: proxyops\n');
  });

  it('hands the rest and every later text to process.stdout when the pipe cannot take more now', () => {
    const { taken, write } = fd1([6], 'EAGAIN');
    const streamed: string[] = [];
    const stream = {
      write: (chunk: string | Uint8Array) => streamed.push(Buffer.from(chunk).toString()) > 0,
    };
    const output = plainStdoutOutput(write, () => stream);
    output.writeOut!('Usage: proxyops\n');
    output.writeOut!('Examples:\n');
    expect(taken).toEqual(['Usage:']);
    expect(streamed).toEqual([' proxyops\n', 'Examples:\n']);
  });

  it('is 80 columns wide and uncoloured, as commander makes it for such a stdout', () => {
    const output = plainStdoutOutput();
    expect(output.getOutHelpWidth!()).toBe(80);
    expect(output.getOutHasColors!()).toBe(false);
  });

  it('stops quietly with exit 0 when the reader has already gone (proxyops --help | true)', async () => {
    const child = spawn(process.execPath, [BUILT_CLI, 'logs', 'stats', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the CLI has started, so its write meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
