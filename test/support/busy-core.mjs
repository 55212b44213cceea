// One core kept busy, as another tenant of a shared host keeps it: a child process spinning until stopped.
import { spawn } from 'node:child_process';

/** Starts a spinning child process; `stop()` ends it (by its own pid) and waits for its exit. */
export function startBusyCore() {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return {
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGKILL');
      }),
  };
}
