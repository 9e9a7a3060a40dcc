import type { Logger } from 'pino';
import type { Config } from '../../config';
import { readEmbeddedUri } from './embedded-uri-file';
import { startLocalEngine, type LocalEngine } from './mongo-engine/local-engine';
import { connectMongo, disconnectMongo, ensureIndexes, missingIndexes } from './mongo';

/**
 * Index builds belong to the migration step (`db:migrate`, or `npm start` before it starts the
 * service); a process that finds some missing says so and serves anyway, without building them.
 */
async function verifyIndexes(logger: Logger): Promise<void> {
  const missing = await missingIndexes().catch((err: unknown) => {
    logger.warn({ err: (err as Error).message }, 'could not list the indexes to verify them');
    return [];
  });
  if (missing.length === 0) return;
  logger.error(
    { missing },
    'MongoDB lacks indexes this version declares: run `npm run -s cli -- db:migrate` (in a container `node dist/src/cli/main.js db:migrate`) once; until then queries may scan and unique constraints are not enforced',
  );
}

export interface Database {
  uri: string;
  embedded: LocalEngine | undefined;
  close(): Promise<void>;
}

/**
 * Connects to MONGODB_URI. When it is unset, `own` starts a local engine in this process (a
 * mongod, else the in-memory engine); `shared` joins the engine a running `npm start` advertised
 * (the worker and the CLI do this: one mongod owns a data directory, and an in-memory engine of
 * their own would hold none of the service's data).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  embeddedMode: 'own' | 'shared' = 'own',
  indexes: 'verify' | 'skip' = 'verify',
): Promise<Database> {
  let embedded: LocalEngine | undefined;
  let uri = config.mongodbUri;
  if (!uri && embeddedMode === 'shared') {
    uri = readEmbeddedUri(config.runtimeDir);
    if (!uri) {
      throw new Error(
        'MONGODB_URI is not set and no running linkqr service was found: start it with `npm start` first, or set MONGODB_URI',
      );
    }
  }
  if (!uri) {
    embedded = await startLocalEngine(config, logger);
    uri = embedded.uri;
  }
  await connectMongo(uri, config.mongodbDbName, {
    analyticsReadPreference: config.mongodbReadPreference,
  });
  // An engine of this process's own is new and this process its only user: it builds them.
  if (embedded) await ensureIndexes();
  else if (indexes === 'verify') await verifyIndexes(logger);
  return {
    uri,
    embedded,
    close: async () => {
      await disconnectMongo();
      await embedded?.stop();
    },
  };
}
