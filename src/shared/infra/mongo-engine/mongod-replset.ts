import { mongo } from 'mongoose';

/**
 * The zero-config start's mongod runs as a single-member replica set, as docker compose's does,
 * so transactions, change streams and majority writes behave as in production. A set stores its
 * member's `host:port`; this makes that member the one just started, whatever port it got.
 */

/** The commands the set-up needs, so a test can answer them without a server. */
export interface ReplicaSetAdmin {
  command(doc: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface ReplicaSetOptions {
  name: string;
  /** `127.0.0.1:<port>`: the address this start listens on. */
  host: string;
  /** How long to wait for this member to become primary (a real mongod: a second or two). */
  primaryTimeoutMs: number;
  /** Pause between two `hello`s while waiting. */
  pollMs?: number;
}

/** What was done, for the log line. */
export type ReplicaSetStep = 'initiated' | 'moved' | 'unchanged';

interface MemberConfig {
  _id: number;
  host: string;
  [key: string]: unknown;
}

interface SetConfig {
  _id: string;
  version: number;
  members: MemberConfig[];
  [key: string]: unknown;
}

const NOT_YET_INITIALIZED = 94;

function codeOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export class ReplicaSetError extends Error {
  override name = 'ReplicaSetError';
}

/**
 * First start: `replSetInitiate` with this member. Later starts on another port (the remembered
 * one was taken): the set's one member still names the old port, so mongod finds itself removed
 * and never becomes primary; a forced `replSetReconfig` (the documented way for a member that
 * cannot reach a primary) gives it the new address. A set someone grew to several members is
 * left alone. Then waits until this member is a writable primary.
 */
export async function ensureReplicaSet(
  admin: ReplicaSetAdmin,
  options: ReplicaSetOptions,
): Promise<ReplicaSetStep> {
  const { name, host, primaryTimeoutMs } = options;
  const pollMs = options.pollMs ?? 200;
  let step: ReplicaSetStep = 'unchanged';
  let config: SetConfig | undefined;
  try {
    config = (await admin.command({ replSetGetConfig: 1 })).config as SetConfig;
  } catch (err) {
    if (codeOf(err) !== NOT_YET_INITIALIZED) throw err;
  }
  if (!config) {
    await admin.command({ replSetInitiate: { _id: name, members: [{ _id: 0, host }] } });
    step = 'initiated';
  } else if (config._id !== name) {
    throw new ReplicaSetError(
      `the data directory belongs to replica set "${config._id}", not "${name}"`,
    );
  } else if (config.members.length === 1 && config.members[0]?.host !== host) {
    const [member] = config.members as [MemberConfig];
    await admin.command({
      replSetReconfig: { ...config, version: config.version + 1, members: [{ ...member, host }] },
      force: true,
    });
    step = 'moved';
  }
  const deadline = Date.now() + primaryTimeoutMs;
  for (;;) {
    const hello = await admin.command({ hello: 1 });
    if (hello.isWritablePrimary === true) return step;
    if (Date.now() >= deadline)
      throw new ReplicaSetError(
        `mongod did not become the primary of replica set "${name}" within ${primaryTimeoutMs} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Runs `ensureReplicaSet` over a direct driver connection to the mongod at `host`. */
export async function ensureReplicaSetAt(options: ReplicaSetOptions): Promise<ReplicaSetStep> {
  // Direct: the member is not (yet) a primary the driver could discover as part of a set.
  const client = new mongo.MongoClient(`mongodb://${options.host}/?directConnection=true`, {
    serverSelectionTimeoutMS: Math.max(options.primaryTimeoutMs, 1000),
  });
  try {
    await client.connect();
    const db = client.db('admin');
    return await ensureReplicaSet(
      { command: (doc) => db.command(doc) as Promise<Record<string, unknown>> },
      options,
    );
  } finally {
    await client.close();
  }
}
