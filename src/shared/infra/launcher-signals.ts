/**
 * Messages between `npm start`'s launcher (src/start.ts) and the processes it forks. The worker
 * says when its render threads are warm; the API, forked with LISTEN_AFTER_WORKER, listens only
 * after the launcher passes that on, so the service reports ready (`/readyz`) once a code created
 * can be rendered at full speed, not while the worker is still compiling its render path.
 */
export const WORKER_READY = { linkqr: 'worker-ready' } as const;

/** The API's argument under the launcher: wait for the worker before listening. */
export const LISTEN_AFTER_WORKER = '--listen-after-worker';

const isWorkerReady = (message: unknown): boolean =>
  typeof message === 'object' &&
  message !== null &&
  (message as { linkqr?: unknown }).linkqr === WORKER_READY.linkqr;

/** The process's IPC channel to the launcher, as `workerReady` uses it. */
export interface LauncherChannel {
  send?: unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * Settles when the launcher has passed on the worker's readiness; at once outside the launcher.
 * Call it before the first await of the process's start: a message that arrives with no listener
 * is lost.
 */
export function workerReady(
  argv: readonly string[] = process.argv,
  channel: LauncherChannel = process,
): Promise<void> {
  if (!argv.includes(LISTEN_AFTER_WORKER) || !channel.send) return Promise.resolve();
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (!isWorkerReady(message)) return;
      channel.off('message', onMessage);
      resolve();
    };
    channel.on('message', onMessage);
  });
}

/** In the launcher: hands the worker's readiness on to the API. */
export function relayWorkerReady(
  from: { on(event: 'message', listener: (message: unknown) => void): unknown },
  to: { connected: boolean; send(message: unknown): boolean },
): void {
  from.on('message', (message) => {
    if (isWorkerReady(message) && to.connected) to.send(WORKER_READY);
  });
}
