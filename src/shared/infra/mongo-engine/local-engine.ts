import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../../config';
import { startEmbeddedMongo } from '../embedded-mongo';
import { chooseEngine, engineLogLines, type EngineProbes } from './engine-choice';
import { checkExecutable, findOnPath } from './executables';
import { downloadMongod, unsupportedPlatform } from './mongod-download';
import { startMongod } from './mongod-process';

export interface LocalEngine {
  engine: 'mongod' | 'memory';
  uri: string;
  stop(): Promise<void>;
}

export function machineProbes(config: Config, logger: Logger): EngineProbes {
  return {
    configuredBinary: config.mongodBinary,
    checkExecutable,
    findOnPath: (name) => findOnPath(name, process.env.PATH),
    unsupportedPlatform,
    download: () => downloadMongod(logger),
  };
}

/** Where a local mongod keeps its data and its log: under RUNTIME_DIR, kept between runs. */
export function mongodPaths(runtimeDir: string): {
  dataDir: string;
  logFile: string;
  portFile: string;
} {
  return {
    dataDir: path.resolve(runtimeDir, 'mongodb'),
    logFile: path.resolve(runtimeDir, 'mongod.log'),
    portFile: path.resolve(runtimeDir, 'mongod.port'),
  };
}

/** The replica set of a local mongod: the name docker compose gives its own (README "Operations"). */
export const LOCAL_REPLICA_SET = 'rs0';

const REPLICA_SET_STEPS = {
  initiated: 'initiated on this first start',
  moved: 'its member moved to the new port by a forced reconfiguration',
  unchanged: 'as on the last start',
} as const;

/**
 * The database of a start without MONGODB_URI: a real mongod when one can be had, else the
 * in-memory engine. Logs which one runs, where its data lives and how to move to one's own.
 */
export async function startLocalEngine(
  config: Config,
  logger: Logger,
  probes: EngineProbes = machineProbes(config, logger),
): Promise<LocalEngine> {
  const choice = await chooseEngine(probes);
  if (choice.engine === 'mongod') {
    const { dataDir, logFile, portFile } = mongodPaths(config.runtimeDir);
    const mongod = await startMongod({
      binary: choice.binary,
      dataDir,
      logFile,
      portFile,
      dbName: config.mongodbDbName ?? 'linkqr',
      replSet: LOCAL_REPLICA_SET,
    });
    for (const line of engineLogLines(choice, { uri: mongod.uri, dataDir })) {
      logger[line.level](line.fields, line.msg);
    }
    if (mongod.replicaSet)
      logger.info(
        { engine: 'mongod', replicaSet: mongod.replicaSet.name, step: mongod.replicaSet.step },
        `mongod runs as the single-member replica set ${mongod.replicaSet.name} (${REPLICA_SET_STEPS[mongod.replicaSet.step]}): transactions and change streams work as on docker compose's.`,
      );
    return {
      engine: 'mongod',
      uri: mongod.uri,
      stop: async () => {
        const exit = await mongod.stop();
        if (exit.forced)
          logger.error(
            { ...exit, logFile },
            'mongod did not stop in time and was killed; its journal recovers the data on the next start',
          );
        else if (exit.code !== 0)
          logger.warn({ ...exit, logFile }, 'mongod stopped with an error; see its log');
        else logger.info({ ...exit }, 'mongod stopped');
      },
    };
  }
  const memory = await startEmbeddedMongo().catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`no MongoDB to run on (${choice.reasons.join('; ')}), and ${why}`);
  });
  for (const line of engineLogLines(choice, { uri: memory.uri })) {
    logger[line.level](line.fields, line.msg);
  }
  return { engine: 'memory', uri: memory.uri, stop: memory.stop };
}
