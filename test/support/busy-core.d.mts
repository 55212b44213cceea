/** One core kept busy by a spinning child process (see busy-core.mjs). */
export function startBusyCore(): { pid: number; stop(): Promise<void> };
