import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
    id: string;
    /** A logger bound to the request id, created on first use. */
    log: Logger;
  }
}

export const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** What the access log says of one request. */
export interface AccessEntry {
  reqId: string;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  ms: number;
}

/** Requests in one batched access-log line at most: a line stays a bounded size. */
export const REQUESTS_PER_LINE = 100;

/**
 * The access log of requests answered before the middleware chain (the redirect fast path): the
 * requests of one turn of the event loop are written as one line, `requests completed`, holding
 * each request's entry. A line per request cost a cached redirect about a tenth of its CPU (pino
 * builds and redacts each line); a batch costs it an array push.
 */
export function batchedAccessLog(logger: Logger): (entry: AccessEntry) => void {
  let pending: AccessEntry[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const requests = pending;
    pending = [];
    logger.info({ requests }, 'requests completed');
  };
  return (entry) => {
    if (!logger.isLevelEnabled('info')) return;
    const count = pending.push(entry);
    if (count === 1) setImmediate(flush);
    else if (count >= REQUESTS_PER_LINE) flush();
  };
}

/**
 * Request ids and one access-log line per request (method, path, status, duration; never headers,
 * query strings or bodies, which can carry keys and passwords). Cheaper than a child logger per
 * request: the short-link redirect runs through here thousands of times a second.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      get: () => (child ??= logger.child({ reqId: id })),
    });
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const entry = {
          reqId: id,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        };
        if (res.statusCode >= 500) logger.error(entry, 'request failed');
        else logger.info(entry, 'request completed');
      });
    }
    next();
  };
}
