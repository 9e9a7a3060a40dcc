import type { Logger } from 'pino';
import type { Config } from '../../config';
import { startEmbeddedMongo, type EmbeddedMongo } from './embedded-mongo';
import { readEmbeddedUri } from './embedded-uri-file';
import { connectMongo, disconnectMongo, ensureIndexes } from './mongo';

export interface Database {
  uri: string;
  embedded: EmbeddedMongo | undefined;
  close(): Promise<void>;
}

/**
 * Connects to MONGODB_URI. When it is unset, `own` starts the embedded engine in this process;
 * `shared` joins the engine a running `npm start` advertised (the worker and the CLI do this,
 * since an in-memory engine of their own would hold none of the service's data).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  embeddedMode: 'own' | 'shared' = 'own',
): Promise<Database> {
  let embedded: EmbeddedMongo | undefined;
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
    embedded = await startEmbeddedMongo();
    uri = embedded.uri;
    logger.warn(
      { uri },
      'MONGODB_URI is not set: using the embedded in-memory engine. Data is NOT persisted and is lost on exit.',
    );
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
