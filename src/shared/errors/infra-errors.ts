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

/** True when the error means MongoDB or Redis cannot be reached, so the answer is 503, not 500. */
export function isInfrastructureUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  if (unavailableNames.has(err.name)) return true;
  if (unavailableCodes.has(String((err as { code?: unknown }).code))) return true;
  if (unavailableMessages.some((m) => err.message.includes(m))) return true;
  return isInfrastructureUnavailable(err.cause, depth + 1);
}
