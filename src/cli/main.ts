import { loadConfig } from '../config';
import { AppError } from '../shared/errors/app-error';
import { openDatabase } from '../shared/infra/database';
import { createLogger } from '../shared/infra/logger';
import { createRedisClient } from '../shared/infra/redis-connections';
import { RedisKeys } from '../shared/infra/redis-keys';
import { ownedListsFor } from '../shared/db/owned-lists';
import { apiKeyCacheFor } from '../users/api-key-cache';
import { UsageError } from './args';
import { commands } from './commands';

function usage(): string {
  return ['Usage: npm run cli -- <command> [flags]', ...commands.map((c) => `  ${c.usage}`)].join(
    '\n',
  );
}

/** Operator CLI: prints one JSON line on success; a message on stderr and exit code 1 or 2 on failure. */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(name ? `Unknown command: ${name}\n${usage()}` : usage());
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'linkqr-cli');
  // The migration command builds the indexes; the others need not check them.
  const database = await openDatabase(config, logger, 'shared', 'skip');
  // Connects only when a command publishes an invalidation.
  const redis = createRedisClient(config.redis, 'cli');
  redis.on('error', () => undefined);
  const cacheDeps = { redis, keys: new RedisKeys(config.redisPrefix), logger };
  // Registered so that the commands' writes drop the API processes' cached lists.
  ownedListsFor(cacheDeps);
  const context = { apiKeys: apiKeyCacheFor(cacheDeps), config, ...cacheDeps };
  try {
    console.log(JSON.stringify(await command.run(rest, context)));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\nUsage: npm run cli -- ${command.usage}`);
      return 2;
    }
    if (err instanceof AppError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  } finally {
    redis.disconnect();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
