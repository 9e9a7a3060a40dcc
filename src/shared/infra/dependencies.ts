import type { RequestHandler } from 'express';
import type { RedisClient } from './redis-connections';
import mongoose from 'mongoose';
import { serviceUnavailable } from '../errors/app-error';

const PROBE_EVERY_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;

/**
 * Whether MongoDB is known to be down. The driver only notices a dead server at its next
 * heartbeat (up to 10 s) and meanwhile lets each operation find out for itself; so the first
 * operation that fails for want of MongoDB marks it down here, every request after that is
 * answered at once, and a ping each second marks it up again as soon as it answers.
 */
class MongoHealth {
  private down = false;
  private probe: NodeJS.Timeout | undefined;
  private pinging = false;
  private watching = false;

  isUp(): boolean {
    return mongoose.connection.readyState === mongoose.ConnectionStates.connected && !this.down;
  }

  /** Called with an operation's error when it says MongoDB cannot be reached. */
  markDown(): void {
    this.watch();
    this.down = true;
    this.probe ??= setInterval(() => void this.ping(), PROBE_EVERY_MS);
    this.probe.unref();
  }

  private markUp(): void {
    this.down = false;
    clearInterval(this.probe);
    this.probe = undefined;
  }

  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    // A (re)connection is proof enough, sooner than the next ping.
    mongoose.connection.on('connected', () => this.markUp());
    mongoose.connection.on('reconnected', () => this.markUp());
  }

  private async ping(): Promise<void> {
    const db = mongoose.connection.db;
    if (this.pinging || !db) return;
    this.pinging = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        db.command({ ping: 1 }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('ping timed out')), PROBE_TIMEOUT_MS);
        }),
      ]);
      this.markUp();
    } catch {
      // still down
    } finally {
      clearTimeout(timer);
      this.pinging = false;
    }
  }
}

export const mongoHealth = new MongoHealth();

export function isMongoUp(): boolean {
  return mongoHealth.isUp();
}

/** True for the driver's and mongoose's own errors (as opposed to Redis's). */
export function isMongoError(err: unknown): boolean {
  return err instanceof Error && /^Mongo/.test(err.name);
}

export function isRedisUp(redis: RedisClient): boolean {
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
export function requireDependencies(redis: RedisClient): RequestHandler {
  return (_req, _res, next) => {
    if (!isRedisUp(redis))
      return next(serviceUnavailable(UNAVAILABLE_MESSAGE, new Error('Redis is down')));
    if (!isMongoUp())
      return next(serviceUnavailable(UNAVAILABLE_MESSAGE, new Error('MongoDB is down')));
    next();
  };
}
