import type { Request } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisKeys } from '../infra/redis-keys';
import { applyVisits } from './visit-apply';
import { hashVisitor, resolveCountry } from './visit-capture';
import { encodeVisit, visitStreamKey } from './visit-stream';
import { deleteVisits, getClickCounts, getStatistics } from './visits.service';
import type { CapturedVisit, Statistics, VisitKind, VisitTarget } from './visits.types';

export interface VisitRecorder {
  /** Captures the visit and queues it; never throws and never delays the response. */
  record(target: VisitTarget, req: Request): void;
}

/** Everything a resource needs of visits, bound to this deployment's Redis (`deps.visits`). */
export interface Visits extends VisitRecorder {
  getStatistics(target: VisitTarget): Promise<Statistics>;
  getClickCounts(kind: VisitKind, ids: number[]): Promise<Map<number, number>>;
  deleteVisits(target: VisitTarget): Promise<void>;
}

export interface VisitRecorderOptions {
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  salt: string;
  countryHeader: string | undefined;
}

const MAX_FIELD = 512;

function header(req: Request, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.slice(0, MAX_FIELD) ?? '';
}

export function captureVisit(
  target: VisitTarget,
  req: Request,
  salt: string,
  countryHeader?: string,
): CapturedVisit {
  const ip = req.ip ?? '';
  const userAgent = header(req, 'user-agent');
  return {
    kind: target.kind,
    targetId: target.id,
    at: Date.now(),
    visitor: hashVisitor(salt, ip, userAgent),
    country: resolveCountry(
      ip,
      countryHeader ? header(req, countryHeader) || undefined : undefined,
    ),
    userAgent,
    referrer: header(req, 'referer'),
  };
}

/**
 * Queues visits on a Redis stream (one XADD, not awaited by the response). If Redis refuses the
 * entry, the visit is written straight to MongoDB instead, so it is slower but never lost.
 */
export function createVisits(options: VisitRecorderOptions): Visits {
  const { redis, keys, logger, salt, countryHeader } = options;
  const stream = visitStreamKey(keys);
  let fallbackId = 0;
  return {
    record(target, req) {
      const visit = captureVisit(target, req, salt, countryHeader);
      redis.xadd(stream, '*', ...encodeVisit(visit)).catch((err: unknown) => {
        fallbackId += 1;
        const entryId = `direct-${process.pid}-${visit.at}-${fallbackId}`;
        applyVisits([{ entryId, visit }], redis, keys).catch((fallbackErr: unknown) =>
          logger.error(
            { err: fallbackErr, cause: String(err), target },
            'visit lost: Redis and MongoDB both refused it',
          ),
        );
      });
    },
    getStatistics: (target) => getStatistics(target, redis, keys),
    getClickCounts: (kind, ids) => getClickCounts(kind, ids),
    deleteVisits: (target) => deleteVisits(target, redis, keys),
  };
}
