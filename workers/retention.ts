import type { Logger } from '../src/shared/infra/logger';
import { resumeUserDeletions, type UserDeletionContext } from '../src/users/user-deletion';
import { purgeExpiredVisits } from '../src/visits/visit-retention';
import { WebhookDelivery } from '../src/webhooks/webhook.model';

const DELIVERY_LOG_DAYS = 30;

export interface RetentionSweep {
  /**
   * One pass: expired raw visits (when a retention is set), old webhook delivery records, and the
   * user deletions that stopped halfway.
   */
  run(): Promise<void>;
  stop(): void;
}

/** Runs the sweep at start and every `intervalMs` (an hour by default). */
export function startRetention(options: {
  visitRetentionDays: number | undefined;
  logger: Logger;
  intervalMs?: number;
  userDeletions?: UserDeletionContext;
}): RetentionSweep {
  const { visitRetentionDays, logger, userDeletions } = options;
  const run = async () => {
    if (visitRetentionDays !== undefined) {
      const visits = await purgeExpiredVisits(visitRetentionDays);
      if (visits) logger.info({ visits, days: visitRetentionDays }, 'expired raw visits deleted');
    }
    const cutoff = new Date(Date.now() - DELIVERY_LOG_DAYS * 86_400_000);
    await WebhookDelivery.deleteMany({ at: { $lt: cutoff } });
    if (userDeletions) {
      const users = await resumeUserDeletions(userDeletions);
      if (users) logger.info({ users }, 'user deletions resumed and finished');
    }
  };
  const safeRun = () =>
    run().catch((err: unknown) =>
      logger.warn({ err: (err as Error).message }, 'retention sweep failed; retrying later'),
    );
  // Fire and forget: safeRun logs its own failure, so its promise never rejects.
  void safeRun();
  const timer = setInterval(() => void safeRun(), options.intervalMs ?? 3_600_000);
  timer.unref();
  return { run, stop: () => clearInterval(timer) };
}
