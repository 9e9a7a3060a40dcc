import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { serviceUnavailable } from '../errors/app-error';

/**
 * The driver marks the server unknown within milliseconds of losing its connection (and
 * mongoose reports the connection as no longer connected), long before an operation would give
 * up after its server-selection timeout.
 */
export function isMongoUp(): boolean {
  return mongoose.connection.readyState === mongoose.ConnectionStates.connected;
}

export function isRedisUp(redis: Redis): boolean {
  return redis.status === 'ready';
}

export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable, try again shortly';

/** Throws the 503 at once when MongoDB is known to be down. */
export function assertMongoUp(): void {
  if (!isMongoUp()) throw serviceUnavailable(UNAVAILABLE_MESSAGE, new Error('MongoDB is down'));
}

/**
 * Answers 503 at once while Redis or MongoDB is known to be down, instead of letting the request
 * wait for a timeout: every API call needs both (keys, rate limits, records).
 */
export function requireDependencies(redis: Redis): RequestHandler {
  return (_req, _res, next) => {
    if (!isRedisUp(redis))
      return next(serviceUnavailable(UNAVAILABLE_MESSAGE, new Error('Redis is down')));
    if (!isMongoUp())
      return next(serviceUnavailable(UNAVAILABLE_MESSAGE, new Error('MongoDB is down')));
    next();
  };
}
