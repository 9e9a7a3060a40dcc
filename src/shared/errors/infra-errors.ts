const unavailableNames = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClosedError',
  'MaxRetriesPerRequestError',
]);

const unavailableMessages = [
  // mongoose with bufferCommands disabled, while disconnected
  'before initial connection is complete',
  'Client must be connected before running operations',
  'connection is closed',
  // ioredis with enableOfflineQueue disabled, while disconnected
  "Stream isn't writeable",
  'Connection is closed',
  'connect ECONNREFUSED',
];

/** Socket errors that the drivers sometimes pass on unwrapped (a write to a connection just lost). */
const unavailableCodes = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED']);

/**
 * MongoDB's answers while a replica set elects a primary (or a member shuts down): the driver
 * retries a read or a write once on its own (retryReads / retryWrites, on by default and forced
 * on in mongo.ts); what still fails within the election window is worth a retry by the client.
 */
const electionCodes = new Set([
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  9001, // SocketException
]);

/** True for a MongoDB error of an election or failover (see `electionCodes`), or one the driver labels retryable. */
export function isMongoFailover(err: unknown): boolean {
  if (!(err instanceof Error) || !/^Mongo/.test(err.name)) return false;
  const e = err as { code?: unknown; hasErrorLabel?: (label: string) => boolean };
  if (typeof e.code === 'number' && electionCodes.has(e.code)) return true;
  return typeof e.hasErrorLabel === 'function' && e.hasErrorLabel('RetryableWriteError');
}

/** True when the error means MongoDB or Redis cannot be reached, so the answer is 503, not 500. */
export function isInfrastructureUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  if (unavailableNames.has(err.name) || isMongoFailover(err)) return true;
  if (unavailableCodes.has(String((err as { code?: unknown }).code))) return true;
  if (unavailableMessages.some((m) => err.message.includes(m))) return true;
  return isInfrastructureUnavailable(err.cause, depth + 1);
}
