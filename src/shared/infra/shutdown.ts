import type { Logger } from 'pino';

type Step = () => Promise<unknown>;

/** Runs the steps once, in order, on SIGTERM or SIGINT (again: ignored); exits non-zero if they overrun the timeout. */
export function onShutdown(logger: Logger, timeoutMs: number, steps: Step[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        logger.error({ err }, 'shutdown step failed');
      }
    }
    clearTimeout(timer);
    logger.info('shutdown complete');
    process.exit(0);
  };
  // Kept for good: a second signal (a process group's kill plus the launcher forwarding it) must
  // find a handler, or its default action ends the process in the middle of the shutdown.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
