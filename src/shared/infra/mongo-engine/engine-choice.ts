/**
 * Which MongoDB `npm start` runs when MONGODB_URI is unset: the first real `mongod` that can be
 * had, else the in-memory test engine. The probes are injected so every branch is testable on a
 * machine that has no `mongod` and no internet.
 */

export type MongodSource = 'MONGOD_BINARY' | 'PATH' | 'download';

export type EngineChoice =
  | { engine: 'mongod'; binary: string; source: MongodSource }
  | { engine: 'memory'; reasons: string[] };

export interface EngineProbes {
  /** MONGOD_BINARY as configured. */
  configuredBinary: string | undefined;
  /** Resolves when `file` is an executable file; rejects saying why it is not. */
  checkExecutable(file: string): Promise<void>;
  /** The first executable `name` in the PATH's directories. */
  findOnPath(name: string): Promise<string | undefined>;
  /** Why no mongod build exists for this machine, or undefined when one does. */
  unsupportedPlatform(): Promise<string | undefined>;
  /** The cached or freshly downloaded binary; rejects saying why none could be had. */
  download(): Promise<string>;
}

export class MongodBinaryError extends Error {
  override name = 'MongodBinaryError';
}

function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, ' ').trim();
}

export async function chooseEngine(probes: EngineProbes): Promise<EngineChoice> {
  if (probes.configuredBinary) {
    // A binary the operator named is never swapped for the in-memory engine behind their back.
    const binary = probes.configuredBinary;
    await probes.checkExecutable(binary).catch((err: unknown) => {
      throw new MongodBinaryError(`MONGOD_BINARY=${binary} cannot be run: ${messageOf(err)}`);
    });
    return { engine: 'mongod', binary, source: 'MONGOD_BINARY' };
  }
  const onPath = await probes.findOnPath('mongod');
  if (onPath) return { engine: 'mongod', binary: onPath, source: 'PATH' };

  const reasons = ['MONGOD_BINARY is not set', 'no mongod on the PATH'];
  const unsupported = await probes.unsupportedPlatform();
  if (unsupported) {
    return {
      engine: 'memory',
      reasons: [...reasons, `no mongod build for this platform: ${unsupported}`],
    };
  }
  try {
    return { engine: 'mongod', binary: await probes.download(), source: 'download' };
  } catch (err) {
    return {
      engine: 'memory',
      reasons: [...reasons, `the mongod download failed: ${messageOf(err)}`],
    };
  }
}

export interface EngineLogLine {
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  msg: string;
}

const ownMongo =
  'For a MongoDB of your own, set MONGODB_URI (`docker compose up` runs one with a persistent volume).';

function describeSource(choice: Extract<EngineChoice, { engine: 'mongod' }>): string {
  switch (choice.source) {
    case 'MONGOD_BINARY':
      return `the mongod named by MONGOD_BINARY (${choice.binary})`;
    case 'PATH':
      return `the mongod found on the PATH (${choice.binary})`;
    case 'download':
      return `the mongod downloaded once and cached at ${choice.binary}`;
  }
}

/** What the launcher logs about the engine it started: which one, where the data lives, what next. */
export function engineLogLines(
  choice: EngineChoice,
  where: { uri: string; dataDir?: string },
): EngineLogLine[] {
  if (choice.engine === 'mongod') {
    return [
      {
        level: 'info',
        fields: {
          engine: 'mongod',
          source: choice.source,
          binary: choice.binary,
          dataDir: where.dataDir,
          uri: where.uri,
        },
        msg: `MONGODB_URI is not set: running ${describeSource(choice)} with its data in ${where.dataDir}, kept between runs.`,
      },
      { level: 'info', fields: { engine: 'mongod' }, msg: ownMongo },
    ];
  }
  return [
    {
      level: 'warn',
      fields: { engine: 'memory', reasons: choice.reasons, uri: where.uri },
      msg: `MONGODB_URI is not set and no mongod could be had (${choice.reasons.join('; ')}): using the embedded in-memory engine. Data is NOT persisted and is lost when the service stops.`,
    },
    {
      level: 'warn',
      fields: { engine: 'memory' },
      msg: `To keep data, put mongod on the PATH or name it in MONGOD_BINARY, or let npm start download it once on a machine with internet access. ${ownMongo}`,
    },
  ];
}
