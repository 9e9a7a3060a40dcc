import type { RedisClient } from '../shared/infra/redis-connections';
import type { Config } from '../config';
import type { Invalidator } from '../shared/cache/shared-cache';
import type { Logger } from '../shared/infra/logger';
import type { RedisKeys } from '../shared/infra/redis-keys';

/** What commands reach besides the database: the API processes' caches, to keep them coherent. */
export interface CliContext {
  apiKeys: Invalidator;
  /** For commands that queue work for the worker (`import`). */
  config?: Config;
  redis?: RedisClient;
  keys?: RedisKeys;
  logger?: Logger;
  /** Where a long command shows its progress (stderr unless a test says otherwise). */
  progress?: NodeJS.WriteStream;
}

/**
 * A CLI command: parses its own flags and returns the record to print as one JSON line. The CLI
 * always passes the context; commands that write nothing cached may ignore it.
 */
export interface CliCommand {
  name: string;
  usage: string;
  run(argv: string[], context?: CliContext): Promise<Record<string, unknown>>;
}
