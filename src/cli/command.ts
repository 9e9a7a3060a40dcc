import type { Invalidator } from '../shared/cache/shared-cache';

/** What commands reach besides the database: the API processes' caches, to keep them coherent. */
export interface CliContext {
  apiKeys: Invalidator;
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
