import type { Logger } from 'pino';
import type { Config } from '../../config';
import { readEmbeddedUri } from './embedded-uri-file';
import { startLocalEngine, type LocalEngine } from './mongo-engine/local-engine';
import { connectMongo, disconnectMongo, ensureIndexes } from './mongo';

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
  await connectMongo(uri, config.mongodbDbName);
  await ensureIndexes();
  return {
    uri,
    embedded,
    close: async () => {
      await disconnectMongo();
      await embedded?.stop();
    },
  };
}
