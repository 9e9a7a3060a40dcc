// A render worker in a process of its own, for the test that kills one mid-job.
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/shared/infra/database';
import { createLogger } from '../../src/shared/infra/logger';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { startQrRenderWorker } from '../../workers/qr-render/qr-render.worker';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, 'qr-worker-child');
  await openDatabase(config, logger, 'shared');
  startQrRenderWorker(
    { config, logger, keys: new RedisKeys(config.redisPrefix) },
    // A short lock, so the job of this process, once killed, is released within a second; and a
    // short stalled check, since the last check's interval holds back every worker's next one.
    { lockDuration: 1000, stalledInterval: 300, sweepIntervalMs: 3_600_000 },
  );
  process.send?.('ready');
}

void main();
