import type { Request } from 'express';
import { Command } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { Logger } from 'pino';
import type { RedisKeys } from '../shared/infra/redis-keys';
import { hashVisitor, resolveCountry } from './visit-capture';
import {
  clickIdSource,
  DEFAULT_VISIT_PARTITIONS,
  encodeVisits,
  visitPartitionOf,
  visitStreamKeys,
} from './visit-stream';
import { VisitSpool, type VisitSpoolOptions, type VisitSpoolStats } from './visit-spool';
import { deleteVisits, getClickCounts, getStatistics, getVariantClicks } from './visits.service';
import type { CapturedVisit, Statistics, VisitKind, VisitTarget } from './visits.types';

/** What a click is captured from: a request, or a fast path's `Visitor` (src/shared/http/express-view.ts). */
export type VisitRequest = Pick<Request, 'ip' | 'headers'>;

export interface VisitRecorder {
  /** Captures the visit and queues it; never throws and never delays the response. */
  record(target: VisitTarget, req: VisitRequest): void;
}

/** Everything a resource needs of visits, bound to this deployment's Redis (`deps.visits`). */
export interface Visits extends VisitRecorder {
  getStatistics(target: VisitTarget): Promise<Statistics>;
  getClickCounts(kind: VisitKind, ids: number[]): Promise<Map<number, number>>;
  /** People's clicks per A/B variant URL of a link. */
  getVariantClicks(target: VisitTarget): Promise<Map<string, number>>;
  /** With `userId` (the owner), the target's clicks also leave the owner's account rollup. */
  deleteVisits(target: VisitTarget & { userId?: number }): Promise<void>;
  /** The deployment's keyed hash of a client address, for anything that must tell clients apart. */
  hashAddress(ip: string): string;
  /** The partitions' streams the clicks are queued on (metrics). */
  readonly streams: readonly string[];
  /** Clicks waiting in this process for Redis, and clicks lost (health and metrics). */
  spoolStats(): VisitSpoolStats;
  /**
   * Sends the clicks gathered so far now, and resolves once Redis has answered for every click
   * sent before (stored, or put in the spool): a drain that follows sees them.
   */
  flush(): Promise<void>;
  /** Flushes the spool at shutdown; what cannot be written is counted as lost. */
  close(): Promise<void>;
}

export interface VisitRecorderOptions {
  redis: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  salt: string;
  countryHeader: string | undefined;
  /** VISIT_STREAM_PARTITIONS: every API and worker process must use the same number. */
  partitions?: number;
  /** Tuning of the spool that holds clicks while Redis is away. */
  spool?: Pick<VisitSpoolOptions, 'capacity' | 'mongoUp'>;
  /** How long clicks gather after a send before the next one (default `CAPTURE_WINDOW_MS`). */
  windowMs?: number;
}

const MAX_FIELD = 512;

/** Clicks in one stream entry at most: a drainer's batch (500 entries) stays a bounded size. */
export const CLICKS_PER_ENTRY = 100;

/**
 * A busy process sends its clicks at most once per this many ms (one XADD per partition): a
 * socket write per event-loop turn of redirects cost more CPU than the clicks' own capture.
 */
export const CAPTURE_WINDOW_MS = 5;

function header(req: VisitRequest, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.slice(0, MAX_FIELD) ?? '';
}

/** A visitor's hash by address and User-Agent, kept for the visitors seen lately. */
export type VisitorHasher = (ip: string, userAgent: string) => string;

/**
 * Returning visitors click again and again from the same address and browser: their keyed hash
 * is remembered (a bounded LRU) rather than computed for every click.
 */
export function visitorHasher(salt: string, max = 10_000): VisitorHasher {
  const seen = new LRUCache<string, string>({ max });
  // The clicks of a burst mostly come from one visitor: the last one is checked first.
  let lastIp = '';
  let lastAgent: string | undefined;
  let lastVisitor = '';
  return (ip, userAgent) => {
    if (ip === lastIp && userAgent === lastAgent) return lastVisitor;
    const key = `${ip}\n${userAgent}`;
    let visitor = seen.get(key);
    if (visitor === undefined) {
      visitor = hashVisitor(salt, ip, userAgent);
      seen.set(key, visitor);
    }
    lastIp = ip;
    lastAgent = userAgent;
    lastVisitor = visitor;
    return visitor;
  };
}

export function captureVisit(
  target: VisitTarget,
  req: VisitRequest,
  hash: VisitorHasher,
  countryHeader?: string,
  nextClickId?: () => string,
): CapturedVisit {
  const ip = req.ip ?? '';
  const userAgent = header(req, 'user-agent');
  const visit: CapturedVisit = {
    kind: target.kind,
    targetId: target.id,
    at: Date.now(),
    visitor: hash(ip, userAgent),
    country: resolveCountry(
      ip,
      countryHeader ? header(req, countryHeader) || undefined : undefined,
    ),
    userAgent,
    referrer: header(req, 'referer'),
  };
  if (target.variant) visit.variant = target.variant;
  if (nextClickId) visit.clickId = nextClickId();
  return visit;
}

/**
 * Queues visits on a Redis stream, not awaited by the response. Clicks are sent together, as one
 * entry per partition: at the end of the event-loop turn that captured them when nothing was sent
 * in the last `windowMs`, else once that window is over, so a busy API sends Redis one command
 * per partition every few ms rather than one per turn. While Redis is down or refuses an entry, the
 * visit waits in the bounded in-process spool, which is flushed in batches once Redis or MongoDB
 * answers: the redirect never waits, and never writes to MongoDB itself. Each click carries an id
 * made here, so a click sent twice (an XADD whose answer a failover cut off, then re-sent from the
 * spool) is still stored and counted once.
 */
export function createVisits(options: VisitRecorderOptions): Visits {
  const { redis, keys, logger, salt, countryHeader } = options;
  const partitions = options.partitions ?? DEFAULT_VISIT_PARTITIONS;
  const streams = visitStreamKeys(keys, partitions);
  const spool = new VisitSpool({ redis, keys, logger, partitions, ...options.spool });
  const hash = visitorHasher(salt);
  const nextClickId = clickIdSource();
  const windowMs = options.windowMs ?? CAPTURE_WINDOW_MS;
  let queued: CapturedVisit[] = [];
  let sentAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  /** XADDs whose answer has not come back, for `flush`. */
  const sending = new Set<Promise<void>>();

  /**
   * XADD written straight to the connection. The request connection auto-pipelines, and each
   * pipeline it opens copies every command and script the client knows onto a new object: for
   * this one command, already holding a whole turn's clicks, that copy cost more than the
   * command itself. A cluster client still sends it to the node of the stream's slot.
   */
  function xadd(stream: string, fields: string[]): Promise<unknown> {
    const command = new Command('xadd', [stream, '*', ...fields]);
    void redis.sendCommand(command);
    return command.promise;
  }

  /**
   * Sends the queued visits: one entry per partition holding all of its clicks. An XADD that
   * fails puts its clicks in the spool, marked as re-sent: the error may have come after Redis
   * took the entry (a failover cut the answer off), and only one copy is ever stored.
   */
  function send(): void {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return;
    const visits = queued;
    queued = [];
    sentAt = performance.now();
    if (redis.status !== 'ready') {
      for (const visit of visits) spool.add(visit);
      return;
    }
    const byPartition = new Map<number, CapturedVisit[]>();
    for (const visit of visits) {
      const partition = visitPartitionOf(visit.kind, visit.targetId, partitions);
      const group = byPartition.get(partition);
      if (group) group.push(visit);
      else byPartition.set(partition, [visit]);
    }
    for (const [partition, all] of byPartition) {
      for (let i = 0; i < all.length; i += CLICKS_PER_ENTRY) {
        const group = all.slice(i, i + CLICKS_PER_ENTRY);
        const sent = xadd(streams[partition] as string, encodeVisits(group)).then(
          () => undefined,
          () => {
            for (const visit of group) {
              visit.resent = true;
              spool.add(visit);
            }
          },
        );
        sending.add(sent);
        void sent.then(() => sending.delete(sent));
      }
    }
  }

  return {
    streams,
    record(target, req) {
      const visit = captureVisit(target, req, hash, countryHeader, nextClickId);
      if (queued.push(visit) > 1) return;
      const wait = sentAt + windowMs - performance.now();
      if (wait > 0) timer = setTimeout(send, wait);
      else setImmediate(send);
    },
    getStatistics: (target) => getStatistics(target, redis, keys),
    getClickCounts: (kind, ids) => getClickCounts(kind, ids),
    getVariantClicks: (target) => getVariantClicks(target),
    deleteVisits: (target) => deleteVisits(target, redis, keys),
    hashAddress: (ip) => hashVisitor(salt, ip, ''),
    spoolStats: () => spool.stats(),
    flush: async () => {
      send();
      await Promise.all(sending);
    },
    close: async () => {
      send();
      // An XADD refused now still reaches the spool before it closes.
      await Promise.all(sending);
      return spool.close();
    },
  };
}
